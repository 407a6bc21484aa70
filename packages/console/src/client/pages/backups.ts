// Backups: the base backups of BACKUP_TARGET, newest first, and a button that takes one now (the same backup as
// `auction-ops backup create`). Servers without backups (no BACKUP_TARGET, or an external database) say so.
import { countedTable, h, markReady, notice, when } from '../dom.js';
import { formatBytes } from '../format.js';
import { consoleApi } from '../session.js';

interface Backup {
  id: string;
  started_at: string;
  finished_at: string;
  bytes: number;
  stop_wal: string;
}

export async function renderBackups(main: HTMLElement, _params?: URLSearchParams, done?: string): Promise<void> {
  const { configured, backups } = await consoleApi<{ configured: boolean; backups: Backup[] }>('backups');
  if (!configured) {
    main.replaceChildren(
      h('h1', {}, 'Backups'),
      notice('This server takes no backups: BACKUP_TARGET is not set, or its database is external (docs/backups.md).'),
    );
    markReady('backups');
    return;
  }
  const create = h('button', { type: 'button' }, 'Create a backup now');
  create.addEventListener('click', async () => {
    create.setAttribute('disabled', '');
    create.textContent = 'Creating a backup…';
    try {
      const made = await consoleApi<Backup>('backups', 'POST');
      await renderBackups(main, undefined, `Backup ${made.id} created (${formatBytes(made.bytes)}).`);
    } catch (error) {
      main.append(notice(`The backup failed: ${(error as Error).message}`, 'alert'));
      create.removeAttribute('disabled');
      create.textContent = 'Create a backup now';
    }
  });
  main.replaceChildren(
    h('h1', {}, 'Backups'),
    ...(done ? [notice(done)] : []),
    create,
    countedTable(backups, 'backup', 'No backups yet.', ['Backup', 'Started', 'Finished', 'Size', 'Last WAL'], (b) => [
      b.id,
      when(b.started_at),
      when(b.finished_at),
      formatBytes(b.bytes),
      b.stop_wal,
    ]),
  );
  markReady('backups');
}
