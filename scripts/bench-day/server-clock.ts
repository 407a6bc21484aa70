// The hour by the server's own clock: its request-duration histogram (GET /metrics, http_request_duration_seconds)
// read when the hour starts and when its traffic is done. The generators time a request from its send to its answer
// on their own event loops, so a generator held up (a long GC of its own, its share of the two cores) adds to every
// request it has in flight; the server's histogram runs from the request's start in a worker to its answer, without
// the wait for a worker's event loop before that. Between the two is where a slow second was spent.
// Read with it, from the same scrape: the workers' garbage-collection pauses (prom-client's
// nodejs_gc_duration_seconds, which stop a worker's event loop) and the REST engine's plan-cache lookups (a miss
// parses, plans and compiles the read again).
import { parseSample } from '../../apps/server/test/support/prometheus-lint.js';

/** Observations of one histogram series: how many, their total (seconds), and how many within each bound. */
export interface ClockCounts {
  count: number;
  sum: number;
  within: Record<string, number>;
}

export interface ServerClock {
  /** Requests by `family method` (rest GET, rest POST, storage POST, ...), statuses summed. */
  requests: Record<string, ClockCounts>;
  /** Garbage-collection pauses by kind (minor, major, incremental, weakcb), the workers summed. */
  gc: Record<string, ClockCounts>;
  /** REST reads looked up in the plan cache. */
  planCache: { hit: number; miss: number };
}

/** Adds one histogram sample (`_bucket`, `_sum` or `_count`) of `metric` to `into`, keyed by `keyOf(labels)`. */
function addHistogramSample(
  into: Record<string, ClockCounts>,
  metric: string,
  name: string,
  labels: Record<string, string>,
  value: number,
  keyOf: (labels: Record<string, string>) => string,
): void {
  if (!name.startsWith(metric)) return;
  const part = name.slice(metric.length);
  if (part !== '_bucket' && part !== '_sum' && part !== '_count') return;
  const key = keyOf(labels);
  into[key] ??= { count: 0, sum: 0, within: {} };
  const entry = into[key];
  if (part === '_sum') entry.sum += value;
  else if (part === '_count') entry.count += value;
  else if (labels.le !== '+Inf') entry.within[labels.le!] = (entry.within[labels.le!] ?? 0) + value;
}

export function parseClock(text: string): ServerClock {
  const clock: ServerClock = { requests: {}, gc: {}, planCache: { hit: 0, miss: 0 } };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseSample(line);
    if (typeof sample === 'string') continue;
    const { name, labels, value } = sample;
    if (name === 'rest_plan_cache_lookups_total') {
      if (labels.result === 'hit' || labels.result === 'miss') clock.planCache[labels.result] += value;
      continue;
    }
    addHistogramSample(
      clock.requests,
      'http_request_duration_seconds',
      name,
      labels,
      value,
      (l) => `${l.family} ${l.method}`,
    );
    addHistogramSample(clock.gc, 'nodejs_gc_duration_seconds', name, labels, value, (l) => l.kind ?? '');
  }
  return clock;
}

export async function readClock(url: string, token: string): Promise<ServerClock> {
  const res = await fetch(new URL('/metrics', url), { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  return parseClock(await res.text());
}

function seriesBetween(before: Record<string, ClockCounts>, after: Record<string, ClockCounts>) {
  const out: Record<string, ClockCounts> = {};
  for (const [key, a] of Object.entries(after)) {
    const b = before[key];
    const count = a.count - (b?.count ?? 0);
    if (count <= 0) continue;
    out[key] = {
      count,
      sum: a.sum - (b?.sum ?? 0),
      within: Object.fromEntries(Object.entries(a.within).map(([le, n]) => [le, n - (b?.within[le] ?? 0)])),
    };
  }
  return out;
}

/** What happened between two readings. */
export function clockBetween(before: ServerClock, after: ServerClock): ServerClock {
  return {
    requests: seriesBetween(before.requests, after.requests),
    gc: seriesBetween(before.gc, after.gc),
    planCache: {
      hit: after.planCache.hit - before.planCache.hit,
      miss: after.planCache.miss - before.planCache.miss,
    },
  };
}

const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;

/**
 * "rest GET: 24000, 99.4 % within 100 ms, 99.9 % within 250 ms" for the families the hour sends most, then the
 * workers' GC pauses by kind and the plan cache's hits.
 */
export function clockLines(clock: ServerClock): string[] {
  const within = (c: ClockCounts, le: string) => share(c.within[le] ?? 0, c.count).padStart(7);
  const requests = Object.entries(clock.requests)
    .sort((a, b) => b[1].count - a[1].count)
    .filter(([, c]) => c.count >= 100)
    .map(
      ([key, c]) =>
        `  ${key.padEnd(16)} ${String(c.count).padStart(7)}  within 100 ms ${within(c, '0.1')}, 250 ms ${within(c, '0.25')}, 1 s ${within(c, '1')}`,
    );
  // prom-client's GC buckets are 1 ms, 10 ms, 100 ms, 1 s, ...: a pause over 10 ms is one the reads can feel.
  const gc = Object.entries(clock.gc)
    .sort((a, b) => b[1].sum - a[1].sum)
    .map(([kind, c]) => {
      const over = (le: string) => c.count - (c.within[le] ?? 0);
      return `  gc ${kind.padEnd(13)} ${String(c.count).padStart(7)}  ${(c.sum * 1000).toFixed(0).padStart(6)} ms in all, ${(
        (c.sum * 1000) / c.count
      ).toFixed(1)} ms each, ${over('0.01')} over 10 ms, ${over('0.1')} over 100 ms`;
    });
  const lookups = clock.planCache.hit + clock.planCache.miss;
  const plans = lookups
    ? [`  REST plan cache  ${String(lookups).padStart(7)}  reads, ${share(clock.planCache.hit, lookups)} hits`]
    : [];
  return [...requests, ...gc, ...plans];
}
