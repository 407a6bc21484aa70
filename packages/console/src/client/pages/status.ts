// Server status from /console/api/status: each part (database, backups and WAL archiving, webhooks, disk, read
// replicas) with its state (ok / warning / failing, or off) and a one-line reason; numbers formatted for people.
import { dataTable, h, markReady } from '../dom.js';
import { formatAgo, formatBytes, formatDuration } from '../format.js';
import { fetchStatus } from '../session.js';

type State = 'ok' | 'warning' | 'failing' | 'off';
interface Check {
  state: State;
  reason: string;
  [name: string]: unknown;
}
type Entries = Record<string, unknown>;

const idOf = (title: string) => `status-${title.toLowerCase().replace(/\W+/g, '-')}`;

/** A titled section of name/value pairs (a description list). */
export function list(title: string, entries: Entries, ...before: HTMLElement[]): HTMLElement {
  const id = idOf(title);
  const shown = Object.entries(entries).filter(([, value]) => value !== undefined);
  return h(
    'section',
    { 'aria-labelledby': id },
    h('h2', { id }, title),
    ...before,
    shown.length > 0 &&
      h('dl', {}, ...shown.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, String(value ?? '—'))])),
  );
}

function stateBadge(state: State): HTMLElement {
  return h('strong', { class: `state state-${state}` }, state);
}

/** The state and its reason, one line under the section's title. */
function verdict(check: Check | undefined): HTMLElement {
  if (!check) return h('p', { class: 'verdict' }, stateBadge('off'), ' not reported by this server');
  return h('p', { class: 'verdict' }, stateBadge(check.state), ' ', check.reason);
}

function checkSection(title: string, check: Check | undefined, entries: Entries, ...after: HTMLElement[]): HTMLElement {
  const section = list(title, entries, verdict(check));
  section.dataset.state = check?.state ?? 'off';
  section.append(...after);
  return section;
}

function backupsSection(check: Check | undefined): HTMLElement {
  const archiving = check?.archiving as Entries | undefined;
  const base = check?.base_backup as Entries | undefined;
  if (!archiving || !base) return checkSection('Backups and WAL archiving', check, {});
  const lastFailed = archiving.last_failed_at as string | null;
  return checkSection('Backups and WAL archiving', check, {
    'last segment archived': archiving.last_archived_at ? formatAgo(archiving.last_archived_at as string) : 'never',
    'archive timeout': formatDuration(archiving.timeout_seconds as number),
    failures: lastFailed
      ? `${archiving.failed_count}, last ${formatAgo(lastFailed)} (${archiving.last_failed_wal})`
      : archiving.failed_count,
    'waiting in pg_wal': `${archiving.pending_segments} segments (${formatBytes(archiving.pending_bytes as number)})`,
    'newest base backup': base.finished_at
      ? `${formatAgo(base.finished_at as string)}, ${formatBytes(base.bytes as number)} (${base.id})`
      : 'none',
    ...drillEntries(check?.drill as Entries | undefined),
  });
}

/** The last restore drill: its outcome, duration and the backup it restored; the newest pass when that failed. */
function drillEntries(drill: Entries | undefined): Entries {
  if (!drill) return {};
  if (!drill.finished_at) return { 'last restore drill': 'none yet' };
  const duration = formatDuration(drill.duration_seconds as number);
  const success = drill.last_success_at as string | null;
  return {
    'last restore drill': `${drill.outcome} ${formatAgo(drill.finished_at as string)}, in ${duration}${
      drill.backup_id ? ` (${drill.backup_id})` : ''
    }`,
    ...(drill.outcome === 'passed' ? {} : { 'last drill passed': success ? formatAgo(success) : 'never' }),
  };
}

function webhooksSection(check: Check | undefined): HTMLElement {
  if (!check || check.due === undefined) return checkSection('Webhooks', check, {});
  const disabled =
    (check.disabled as { url: string; auction: string; reason: string | null; disabled_at: string }[]) ?? [];
  return checkSection(
    'Webhooks',
    check,
    {
      'deliveries due': check.due,
      'oldest due for': check.oldest_due_seconds === null ? '—' : formatDuration(check.oldest_due_seconds as number),
      'disabled endpoints': check.disabled_endpoints,
    },
    ...(disabled.length === 0
      ? []
      : [
          h(
            'ul',
            { class: 'disabled-endpoints', 'aria-label': 'Disabled endpoints' },
            ...disabled.map((e) =>
              h(
                'li',
                {},
                h('span', { class: 'url' }, e.url),
                ` (${e.auction}): ${e.reason ?? 'no reason given'}, disabled ${formatAgo(e.disabled_at)}`,
              ),
            ),
          ),
        ]),
  );
}

/** "2 uploads, 1 import" (this process's counts), or "none". */
function refusalsText(refusals: Record<string, number> | undefined): string {
  const parts = Object.entries(refusals ?? {})
    .filter(([, n]) => n > 0)
    .map(([operation, n]) => `${n} ${operation}${n === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

function diskSection(check: Check | undefined): HTMLElement {
  if (!check || check.free_bytes === undefined) return checkSection('Disk', check, {});
  const free = check.free_bytes as number;
  const total = check.total_bytes as number;
  return checkSection('Disk', check, {
    'DATA_DIR filesystem': check.path,
    free: `${formatBytes(free)} (${total > 0 ? ((free / total) * 100).toFixed(1) : '0'} %)`,
    size: formatBytes(total),
    ...(typeof check.floor_bytes === 'number' && check.floor_bytes > 0
      ? {
          'free-space floor': formatBytes(check.floor_bytes),
          uploads: check.refusing_writes ? 'refused (507) until space is freed' : 'accepted',
          'refused since start': refusalsText(check.refusals as Record<string, number> | undefined),
        }
      : { 'free-space floor': 'off' }),
  });
}

function replicasSection(check: Check | undefined, replicas: (Check & { replica: number; lag_ms: number | null })[]) {
  const id = idOf('Read replicas');
  const section = h('section', { 'aria-labelledby': id, 'data-state': check?.state ?? 'off' });
  section.append(h('h2', { id }, 'Read replicas'), verdict(check));
  if (replicas.length > 0)
    section.append(
      dataTable(
        'Each replica',
        ['Replica', 'State', 'Lag', 'Why'],
        replicas.map((r) => [
          r.replica,
          stateBadge(r.state ?? (r.healthy ? 'ok' : 'failing')),
          r.lag_ms === null ? '—' : formatDuration(r.lag_ms / 1000),
          r.reason ?? '',
        ]),
      ),
    );
  return section;
}

export async function renderStatus(main: HTMLElement): Promise<void> {
  const status = await fetchStatus();
  const checks = (status.checks as Record<string, Check> | undefined) ?? {};
  const database = (status.database as Entries) ?? {};
  const replicas = (status.replicas as (Check & { replica: number; lag_ms: number | null })[]) ?? [];
  const overall = (status.state as State | undefined) ?? 'off';
  const counts = Object.values(checks).filter((c) => c.state === 'warning' || c.state === 'failing');
  main.replaceChildren(
    h('h1', {}, 'Server status'),
    h(
      'p',
      { class: 'verdict overall', 'data-state': overall },
      stateBadge(overall),
      ' ',
      counts.length === 0
        ? 'Every part is ok.'
        : `${counts.length} part${counts.length === 1 ? ' needs' : 's need'} a look.`,
    ),
    list('Server', {
      version: status.version,
      node: status.node,
      processes: status.processes,
      uptime: formatDuration(status.uptime_seconds as number),
    }),
    checkSection('Database', checks.database ?? { state: database.status === 'up' ? 'ok' : 'failing', reason: '' }, {
      status: database.status,
      server_version: database.server_version,
      size: database.size_bytes === undefined ? undefined : formatBytes(database.size_bytes as number),
      connections:
        database.connections === undefined
          ? undefined
          : `${database.connections}${database.max_connections ? ` of ${database.max_connections}` : ''}`,
    }),
    backupsSection(checks.backups),
    webhooksSection(checks.webhooks),
    diskSection(checks.disk),
    replicasSection(checks.replicas, replicas),
    list(
      'Limits',
      Object.fromEntries(
        Object.entries((status.limits as Entries) ?? {}).map(([name, value]) => [
          name,
          name.endsWith('_bytes') && typeof value === 'number' ? formatBytes(value) : value,
        ]),
      ),
    ),
  );
  markReady('status');
}
