// Server status: version, processes, database, replicas and limits, from /console/api/status.
import { dataTable, h, markReady } from '../dom.js';
import { fetchStatus } from '../session.js';

/** A titled section of name/value pairs (a description list). */
export function list(title: string, entries: Record<string, unknown>): HTMLElement {
  const id = `status-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return h(
    'section',
    { 'aria-labelledby': id },
    h('h2', { id }, title),
    h('dl', {}, ...Object.entries(entries).flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, String(value))])),
  );
}

export async function renderStatus(main: HTMLElement): Promise<void> {
  const status = await fetchStatus();
  const replicas = (status.replicas as { replica: number; healthy: boolean; lag_ms: number | null }[]) ?? [];
  main.replaceChildren(
    h('h1', {}, 'Server status'),
    list('Server', {
      version: status.version,
      node: status.node,
      processes: status.processes,
      'uptime (s)': status.uptime_seconds,
    }),
    list('Database', status.database as Record<string, unknown>),
    replicas.length === 0
      ? h('section', {}, h('h2', {}, 'Read replicas'), h('p', {}, 'None configured.'))
      : dataTable(
          'Read replicas',
          ['Replica', 'Healthy', 'Lag (ms)'],
          replicas.map((r) => [r.replica, r.healthy ? 'yes' : 'no', r.lag_ms ?? '—']),
        ),
    list('Limits', status.limits as Record<string, unknown>),
  );
  markReady('status');
}
