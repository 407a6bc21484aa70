// The hour by the server's own clock: its request-duration histogram (GET /metrics, http_request_duration_seconds)
// read when the hour starts and when its traffic is done. The generators time a request from its send to its answer
// on their own event loops, so a generator held up (a long GC of its own, its share of the two cores) adds to every
// request it has in flight; the server's histogram runs from the request's start in a worker to its answer, without
// the wait for a worker's event loop before that. Between the two is where a slow second was spent.

/** Requests of one family and method: how many, and how many within each histogram bound (seconds). */
export interface ClockCounts {
  count: number;
  within: Record<string, number>;
}

export type ServerClock = Record<string, ClockCounts>;

const BUCKET = /^http_request_duration_seconds_bucket\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+?\d+)?)$/;
const LABEL = /(\w+)="([^"]*)"/g;

/** The histogram by `family method` (rest GET, rest POST, storage POST, ...), statuses summed. */
export function parseClock(text: string): ServerClock {
  const clock: ServerClock = {};
  for (const line of text.split('\n')) {
    const m = BUCKET.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
    const key = `${labels.family} ${labels.method}`;
    clock[key] ??= { count: 0, within: {} };
    const entry = clock[key];
    const n = Number(m[2]);
    if (labels.le === '+Inf') entry.count += n;
    else entry.within[labels.le!] = (entry.within[labels.le!] ?? 0) + n;
  }
  return clock;
}

export async function readClock(url: string, token: string): Promise<ServerClock> {
  const res = await fetch(new URL('/metrics', url), { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  return parseClock(await res.text());
}

/** What happened between two readings. */
export function clockBetween(before: ServerClock, after: ServerClock): ServerClock {
  const out: ServerClock = {};
  for (const [key, a] of Object.entries(after)) {
    const b = before[key];
    const count = a.count - (b?.count ?? 0);
    if (count <= 0) continue;
    out[key] = {
      count,
      within: Object.fromEntries(Object.entries(a.within).map(([le, n]) => [le, n - (b?.within[le] ?? 0)])),
    };
  }
  return out;
}

/** "rest GET: 24000, 99.4 % within 100 ms, 99.9 % within 250 ms" for the families the hour sends most. */
export function clockLines(clock: ServerClock): string[] {
  const share = (c: ClockCounts, le: string) => `${((100 * (c.within[le] ?? 0)) / c.count).toFixed(1)} %`;
  return Object.entries(clock)
    .sort((a, b) => b[1].count - a[1].count)
    .filter(([, c]) => c.count >= 100)
    .map(
      ([key, c]) =>
        `  ${key.padEnd(16)} ${String(c.count).padStart(7)}  within 100 ms ${share(c, '0.1').padStart(7)}, 250 ms ${share(c, '0.25').padStart(7)}, 1 s ${share(c, '1').padStart(7)}`,
    );
}
