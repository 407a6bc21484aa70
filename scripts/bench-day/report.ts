// The printed figures of a day run: per request kind p50/p99 and errors, realtime and webhook figures, the
// imports, RSS of every process and the database's connections, the service levels (held or not), each fault with
// its recovery and what requests met, and the audit.
import { hostSpeedLine } from './host-speed.js';
import { clockLines } from './server-clock.js';
import { playing } from './plan.js';
import type { DayResult } from './run.js';
import { byKind, percentile, warmupLine } from './stats.js';

const ms = (v: number) => (Number.isNaN(v) ? '-' : String(Math.round(v)));
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * How many connections the run held and what each cost: sockets to the server (realtime's WebSockets among them) and
 * database connections at their peak, and the server processes' growth from idle to their peak per socket added.
 */
function connectionLines(r: DayResult): string[] {
  const conns = r.samples.flatMap((s) => (s.connections === undefined ? [] : [s.connections]));
  const peakSockets = Math.max(0, ...r.samples.map((s) => s.sockets));
  const server = (s: DayResult['samples'][number]) => (s.rss['server primary'] ?? 0) + (s.rss['server workers'] ?? 0);
  const peakServer = Math.max(0, ...r.samples.map(server));
  const postgres = Math.max(0, ...r.samples.map((s) => s.rss['postgres (PSS sum)'] ?? 0));
  const added = Math.max(1, peakSockets - r.idle.sockets);
  const perSocket = Math.max(0, peakServer - r.idle.serverBytes) / added;
  return [
    `connections: up to ${peakSockets} sockets to the server (${r.websockets} realtime WebSockets, the rest keep-alive HTTP; ${r.idle.sockets} before the subscribers), up to ${Math.max(0, ...conns)} database connections (last ${conns.at(-1) ?? '-'})`,
    `memory per connection: the server's processes grew ${mb(peakServer - r.idle.serverBytes)} MB from idle (${mb(r.idle.serverBytes)} MB) to their peak, ${(perSocket / 1024).toFixed(0)} KB per socket added; PostgreSQL ${mb(postgres)} MB (PSS, shared buffers included) for ${Math.max(0, ...conns)} connections`,
  ];
}

/**
 * Where the machine's CPU went between the first and last sample, per group (the load's own processes included: on
 * one machine they compete with the server), as a share of all its cores. PostgreSQL's figure counts the processes
 * alive at each sample, so backends that exited early are missing from it.
 */
function cpuLine(r: DayResult): string {
  const first = r.samples[0];
  const last = r.samples.at(-1);
  if (!first || !last || last.t <= first.t) return 'cpu: -';
  const capacity = ((last.t - first.t) / 1000) * r.cores;
  const groups = new Map<string, number>();
  for (const name of Object.keys(last.cpu)) {
    const group = name.replace(/-\d+$/, '');
    groups.set(group, (groups.get(group) ?? 0) + Math.max(0, (last.cpu[name] ?? 0) - (first.cpu[name] ?? 0)));
  }
  const used = [...groups.values()].reduce((a, b) => a + b, 0);
  const parts = [...groups].sort((a, b) => b[1] - a[1]).map(([g, s]) => `${g} ${((100 * s) / capacity).toFixed(0)}%`);
  return `cpu of ${r.cores} cores while playing: ${((100 * used) / capacity).toFixed(0)}% used (${parts.join(', ')})`;
}

/** The statements seen running for over half a second at a sample, by how often (the first 160 characters). */
function longRunningLines(r: DayResult): string[] {
  const seen = new Map<string, { times: number; longest: number }>();
  for (const s of r.samples)
    for (const q of s.longRunning ?? []) {
      const key = `${q.backend}: ${q.query}`;
      const entry = seen.get(key) ?? { times: 0, longest: 0 };
      seen.set(key, { times: entry.times + 1, longest: Math.max(entry.longest, q.seconds) });
    }
  if (seen.size === 0) return ['statements over 0.5 s at a sample: none'];
  return [
    'statements over 0.5 s at a sample (times seen, longest s):',
    ...[...seen]
      .sort((a, b) => b[1].times - a[1].times)
      .slice(0, 8)
      .map(([k, v]) => `  ${String(v.times).padStart(4)} x ${v.longest.toFixed(1).padStart(5)}  ${k}`),
  ];
}

type Samples = DayResult['samples'];

/** CPU % of all cores the process groups `of` picks used between the first and last of `samples`. */
function cpuShare(samples: Samples, cores: number, of: (name: string) => boolean): string {
  const [a, b] = [samples[0], samples.at(-1)];
  if (!a || !b || b.t <= a.t) return '-';
  let used = 0;
  for (const name of Object.keys(b.cpu)) if (of(name)) used += Math.max(0, (b.cpu[name] ?? 0) - (a.cpu[name] ?? 0));
  return `${Math.round((100 * used) / (((b.t - a.t) / 1000) * cores))}`;
}

const serverSide = (name: string) => name.startsWith('server') || name.startsWith('postgres');

/**
 * The run window by window: what was sent, how the reads fared, the hangs, where the CPU went, and what the server's
 * busy database connections were doing on average (a pool waiting on locks or on its own process reads differently
 * from one that is running). A stall shows as a window whose reads are slow while the CPU is idle.
 */
function timelineLines(r: DayResult): string[] {
  if (r.requests.length === 0) return [];
  // Not Math.min(...times): a day at K = 20 sends more requests than a call can take arguments.
  const start = r.requests.reduce((min, q) => Math.min(min, q.t), Number.POSITIVE_INFINITY);
  const end = r.requests.reduce((max, q) => Math.max(max, q.t), 0);
  const width = Math.max(20_000, Math.ceil((end - start) / 30 / 10_000) * 10_000);
  const rows: string[][] = [];
  for (let from = start; from <= end; from += width) {
    const sent = r.requests.filter((q) => q.t >= from && q.t < from + width);
    const reads = sent.filter((q) => q.kind.startsWith('read.')).map((q) => q.ms);
    const inWindow = r.samples.filter((s) => s.t >= from && s.t < from + width);
    const cpu = (of: (name: string) => boolean) => cpuShare(inWindow, r.cores, of);
    const activity = new Map<string, number>();
    for (const s of inWindow)
      for (const [key, n] of Object.entries(s.activity ?? {})) activity.set(key, (activity.get(key) ?? 0) + n);
    const busiest = [...activity]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([key, n]) => `${(n / Math.max(1, inWindow.length)).toFixed(1)} ${key.replace(/^auction-ops/, 'ao')}`)
      .join(', ');
    const health = inWindow.flatMap((s) => (s.healthMs === undefined ? [] : [s.healthMs]));
    rows.push([
      String(Math.round((from - start) / 1000)),
      String(sent.length),
      ms(percentile(reads, 50)),
      ms(percentile(reads, 99)),
      String(sent.filter((q) => q.status === 0).length),
      health.length > 0 ? ms(Math.max(...health)) : '-',
      cpu((name) => name.startsWith('server')),
      cpu((name) => name.startsWith('postgres')),
      cpu((name) => !serverSide(name) && name !== 'pg relay'),
      busiest || '-',
    ]);
  }
  return [
    `the run by ${width / 1000} s window (/health: the slowest probe on a new connection; cpu % of all cores, load: the generators, subscribers, receivers and this process; database: mean busy connections by pool, state, wait):`,
    table(
      ['from s', 'sent', 'read p50', 'read p99', 'no answer', '/health max', 'server', 'pg', 'load', 'database'],
      rows,
    ),
  ];
}

/** A statement in a line: the first table or function it names by schema (the REST engine's statements all begin
 * alike), then its beginning. */
function statementLabel(query: string): string {
  const flat = query.replace(/\s+/g, ' ');
  const target = /"[^"]+"\."[^"]+"/.exec(flat)?.[0].replace(/"/g, '');
  return target ? `${target}: ${flat.slice(0, 80)}` : flat.slice(0, 110);
}

/** With `--statements`: where Postgres's time went while playing, costliest first. */
function statementLines(r: DayResult): string[] {
  if (!r.statements) return [];
  const { top, totalMs, functions = [] } = r.statements;
  const functionLines = functions.map(
    (f) =>
      `  ${(f.selfMs / 1000).toFixed(1).padStart(6)} s own ${(f.totalMs / 1000).toFixed(1).padStart(6)} s in all ` +
      `${String(f.calls).padStart(7)} calls ${((1000 * f.selfMs) / Math.max(f.calls, 1)).toFixed(0).padStart(6)} µs own a call  ${f.name}`,
  );
  return [
    `Postgres's time by statement while playing (pg_stat_statements; ${(totalMs / 1000).toFixed(1)} s in all):`,
    ...top.map(
      (s) =>
        `  ${((100 * s.totalMs) / Math.max(totalMs, 1)).toFixed(1).padStart(5)}% ${String(s.calls).padStart(7)} calls ` +
        `${(s.totalMs / Math.max(s.calls, 1)).toFixed(2).padStart(7)} ms  ${statementLabel(s.query)}`,
    ),
    ...(functionLines.length > 0
      ? ["Postgres's functions by their own time while playing (pg_stat_user_functions):", ...functionLines]
      : []),
  ];
}

export function formatDay(r: DayResult): string {
  const out: string[] = [];
  const p = r.plan;
  out.push(
    `K=${p.k}: ${p.auctions} auctions, ${p.staff} staff, ${p.admins} admins, ${playing(p)} (compression ${p.compression}), ${p.jobs} jobs${r.node ? `, server on Node ${r.node}` : ''}`,
  );
  if (r.host) out.push(hostSpeedLine(r.host));
  out.push(
    r.warmup ? warmupLine(r.warmup) : 'no warm-up: the hour began on the server just started (--cold, or older)',
  );
  out.push(
    table(
      ['request kind', 'n', 'p50 ms', 'p99 ms', 'errors', '5xx'],
      byKind(r.requests).map((k) => [k.kind, String(k.n), ms(k.p50), ms(k.p99), String(k.errors), String(k.fivexx)]),
    ),
  );
  const errors = new Map<string, number[]>();
  for (const q of r.requests)
    if (q.status < 200 || q.status >= 300) {
      const key = `${q.status} ${(q.detail ?? '').slice(0, 140)}`;
      const list = errors.get(key);
      if (list) list.push(q.ms);
      else errors.set(key, [q.ms]);
    }
  if (errors.size > 0)
    out.push(
      [
        'errors by answer (most frequent first; count, median ms after sending):',
        ...[...errors]
          .sort((a, b) => b[1].length - a[1].length)
          .slice(0, 8)
          .map(
            ([key, times]) =>
              `  ${String(times.length).padStart(5)} x ${ms(percentile(times, 50)).padStart(6)} ms  ${key}`,
          ),
      ].join('\n'),
    );
  // Runs saved before the GC and plan-cache lines kept the requests at the top level: not printed.
  if (r.serverClock?.requests)
    out.push(
      [
        "by the server's own clock (its request histogram: from a worker's start on the request to its answer):",
        ...clockLines(r.serverClock),
      ].join('\n'),
    );
  out.push(
    `realtime: ${r.realtime.received} changes received of ${r.realtime.expected} expected, commit-to-client p50 ${ms(r.realtime.p50)} ms, p99 ${ms(r.realtime.p99)} ms`,
  );
  out.push(
    `webhooks: ${r.webhooks.arrivals} arrivals, ${r.webhooks.firstAttempts} deliveries seen; backlog (queued and due) max ${r.webhooks.maxBacklogDue}, queued max ${r.webhooks.maxQueued}, queued at the end ${r.webhooks.finalQueued}`,
  );
  for (const i of r.imports)
    out.push(`import: ${i.rows} rows in ${i.seconds.toFixed(1)} s = ${Math.round(i.rows / i.seconds)} rows/s`);
  const names = [...new Set(r.samples.flatMap((s) => Object.keys(s.rss)))];
  out.push(
    table(
      ['process (RSS MB)', 'first', 'max', 'last'],
      names.map((n) => {
        const v = r.samples.map((s) => s.rss[n] ?? 0).filter((x) => x > 0);
        return [n, mb(v[0] ?? 0), mb(Math.max(0, ...v)), mb(v.at(-1) ?? 0)];
      }),
    ),
  );
  out.push(...connectionLines(r));
  out.push(cpuLine(r));
  out.push(...longRunningLines(r));
  out.push(...timelineLines(r));
  out.push(...statementLines(r));
  out.push(
    table(
      ['service level', 'value', 'target', 'held'],
      r.levels.map((l) => [l.name, l.value, l.target, l.held ? 'yes' : 'NO']),
    ),
  );
  if (r.faults.length > 0)
    out.push(
      table(
        [
          'fault',
          'lasted s',
          'errors end after s',
          'levels again after s',
          'requests',
          'ok',
          '503/504',
          'hangs',
          'resets',
          'in flight at kill',
          'other',
        ],
        r.faults.map((f) =>
          f.skipped
            ? [f.name, `skipped: ${f.skipped}`, '', '', '', '', '', '', '', '', '']
            : [
                f.name,
                ((f.end - f.start) / 1000).toFixed(1),
                f.errorsEndMs === undefined ? 'never' : (f.errorsEndMs / 1000).toFixed(1),
                f.recoveryMs === undefined ? 'never' : (f.recoveryMs / 1000).toFixed(1),
                String(f.during.total),
                String(f.during.ok),
                String(f.during.contract),
                String(f.during.hangs),
                String(f.during.resets),
                String(f.during.inFlightAtKill),
                String(f.during.other),
              ],
        ),
      ),
    );
  for (const f of r.faults)
    for (const v of f.violations.slice(0, 5))
      out.push(`  ${f.name}: ${v.kind} ${v.status} after ${Math.round(v.ms)} ms: ${v.detail ?? ''}`);
  const troubled =
    r.faults.some((f) => f.violations.length > 0) ||
    r.requests.some((q) => q.status === 0 || (q.status >= 500 && q.status !== 503 && q.status !== 504));
  if (troubled && r.serverLog.length > 0)
    out.push(['server log (errors, restarts):', ...r.serverLog.map((l) => `  ${l.slice(0, 300)}`)].join('\n'));
  out.push(
    table(
      ['audit', 'checked', 'problems'],
      r.audit.checks.map((c) => [c.name, String(c.checked), String(c.problems.length)]),
    ),
  );
  for (const c of r.audit.checks) for (const problem of c.problems.slice(0, 5)) out.push(`  ${problem}`);
  out.push(
    `audit: ${r.audit.clean ? 'clean' : 'PROBLEMS FOUND'}; ${r.audit.repeats} deliveries repeated under the same webhook_id`,
  );
  if (r.auditAfterDrop) {
    const caught = r.auditAfterDrop.checks
      .flatMap((c) => c.problems)
      .filter((x) => r.droppedId && x.includes(r.droppedId));
    out.push(
      `--drop-one: message ${r.droppedId} deleted after the audit; the audit again: ${r.auditAfterDrop.clean ? 'clean (it MISSED the drop)' : `caught it: ${caught[0] ?? 'problems, but none naming it'}`}`,
    );
  }
  out.push(
    `K=${p.k} ${r.held ? 'HELD' : 'did NOT hold'} the service levels (run took ${Math.round(r.durationMs / 1000)} s)`,
  );
  return out.join('\n');
}
