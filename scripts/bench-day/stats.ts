// Figures from the records: per request kind p50/p99 and errors, the service levels a set of records held, and
// after a fault the time until they hold again (the first window of traffic after the fault in which they do).
import { type RequestClass, serviceLevels } from './profile.js';
import type { ArrivalRecord, RealtimeRecord, RequestRecord } from './messages.js';
import type { Sample } from './sampler.js';

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The generators' warm-up before the hour: what the first requests after a start waited. */
export interface Warmup {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

export function warmupFigures(ms: number[], tookMs: number): Warmup {
  return { requests: ms.length, seconds: tookMs / 1000, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

export const warmupLine = (w: Warmup) =>
  `warm-up before the hour (each admin's dashboard once, the server's first reads): ${w.requests} reads in ` +
  `${w.seconds.toFixed(1)} s, p50 ${Math.round(w.p50)} ms, p99 ${Math.round(w.p99)} ms`;

export function classOf(kind: string): RequestClass {
  if (kind.startsWith('read.')) return 'read';
  if (kind.startsWith('upload.')) return 'upload';
  if (kind.startsWith('import.')) return 'import';
  return 'write';
}

const limitOf: Record<RequestClass, number> = {
  read: serviceLevels.readP99Ms,
  write: serviceLevels.writeP99Ms,
  upload: serviceLevels.uploadP99Ms,
  import: Number.POSITIVE_INFINITY,
};

export const isError = (r: RequestRecord) => r.status < 200 || r.status >= 300;

export interface KindRow {
  kind: string;
  n: number;
  p50: number;
  p99: number;
  errors: number;
  fivexx: number;
}

export function byKind(records: RequestRecord[]): KindRow[] {
  const groups = new Map<string, RequestRecord[]>();
  for (const r of records) {
    const group = groups.get(r.kind);
    if (group) group.push(r);
    else groups.set(r.kind, [r]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, rs]) => {
      const ms = rs.map((r) => r.ms);
      return {
        kind,
        n: rs.length,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        errors: rs.filter(isError).length,
        fivexx: rs.filter((r) => r.status >= 500).length,
      };
    });
}

export interface Level {
  name: string;
  value: string;
  target: string;
  held: boolean;
}

/** First attempts: the first arrival of each delivery id, timed from the event's occurrence. */
export function firstAttempts(arrivals: ArrivalRecord[]): ArrivalRecord[] {
  const seen = new Map<string, ArrivalRecord>();
  for (const a of arrivals) {
    const prior = seen.get(a.webhookId);
    if (!prior || a.t < prior.t) seen.set(a.webhookId, a);
  }
  return [...seen.values()];
}

/** RSS is flat when the last third's maximum is within rssGrowthMax of the first third's. */
export function rssGrowth(samples: Sample[], name: string): number {
  const values = samples.map((s) => s.rss[name] ?? 0).filter((v) => v > 0);
  if (values.length < 6) return 0;
  const third = Math.floor(values.length / 3);
  const first = Math.max(...values.slice(0, third));
  const last = Math.max(...values.slice(-third));
  return last / first - 1;
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${Math.round(ms)} ms`);

export function serviceLevelsHeld(input: {
  requests: RequestRecord[];
  realtime: RealtimeRecord[];
  arrivals: ArrivalRecord[];
  samples?: Sample[];
  flatProcesses?: string[];
  /** In a fault run, 503/504 (507 on a full disk) with contract bodies are expected while a fault lasts. */
  allowContract503?: boolean;
}): Level[] {
  const levels: Level[] = [];
  for (const cls of ['read', 'write', 'upload'] as const) {
    const ms = input.requests.filter((r) => classOf(r.kind) === cls && !isError(r)).map((r) => r.ms);
    if (ms.length === 0) continue;
    const p99 = percentile(ms, 99);
    levels.push({ name: `${cls} p99`, value: fmt(p99), target: `< ${limitOf[cls]} ms`, held: p99 < limitOf[cls] });
  }
  const rt = percentile(
    input.realtime.map((r) => r.ms),
    99,
  );
  if (input.realtime.length > 0)
    levels.push({
      name: 'realtime commit-to-client p99',
      value: fmt(rt),
      target: `< ${serviceLevels.realtimeP99Ms} ms`,
      held: rt < serviceLevels.realtimeP99Ms,
    });
  const first = firstAttempts(input.arrivals).filter((a) => a.occurred > 0);
  if (first.length > 0) {
    const p99 = percentile(
      first.map((a) => a.t - a.occurred),
      99,
    );
    levels.push({
      name: 'webhook first attempt p99',
      value: fmt(p99),
      target: `< ${serviceLevels.webhookFirstAttemptP99Ms} ms`,
      held: p99 < serviceLevels.webhookFirstAttemptP99Ms,
    });
  }
  const bad5xx = input.requests.filter(
    (r) => r.status >= 500 && !(input.allowContract503 && [503, 504, 507].includes(r.status) && r.contract),
  ).length;
  levels.push({
    name: input.allowContract503 ? '5xx (besides contract 503/504/507)' : '5xx responses',
    value: String(bad5xx),
    target: `${serviceLevels.max5xx}`,
    held: bad5xx <= serviceLevels.max5xx,
  });
  for (const name of input.flatProcesses ?? []) {
    const growth = rssGrowth(input.samples ?? [], name);
    levels.push({
      name: `RSS flat: ${name}`,
      value: `${(growth * 100).toFixed(1)}%`,
      target: `< ${serviceLevels.rssGrowthMax * 100}%`,
      held: growth < serviceLevels.rssGrowthMax,
    });
  }
  return levels;
}

/**
 * When, after `from`, the service levels hold again: the start of the first `windowMs` window (stepping by a
 * second) whose requests all succeeded and whose read and write p99 are within their levels. Undefined if never
 * before `until`.
 */
export function recoveredAt(
  records: RequestRecord[],
  from: number,
  until: number,
  windowMs = 5_000,
  /** false: only that no request failed, whatever the latencies. */
  latencies = true,
): number | undefined {
  for (let start = from; start + windowMs <= until; start += 1_000) {
    const window = records.filter((r) => r.t >= start && r.t < start + windowMs);
    if (window.length === 0) continue;
    if (window.some(isError)) continue;
    if (!latencies) return start;
    const held = (['read', 'write'] as const).every((cls) => {
      const ms = window.filter((r) => classOf(r.kind) === cls).map((r) => r.ms);
      return ms.length === 0 || percentile(ms, 99) < limitOf[cls];
    });
    if (held) return start;
  }
  return undefined;
}
