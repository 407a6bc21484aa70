// Fixed-window rate limits with a pluggable counter store: in memory (one instance) or Postgres (shared by
// every instance using the database). Each check counts a hit (of a given cost) and reports limit, remaining
// and reset time for the X-RateLimit-* headers.
import type postgres from 'postgres';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
}

export interface RateLimitStore {
  /**
   * Counts `cost` hits (default 1) for key in the window starting at windowStart (ms) and returns the hits so far.
   * The memory store answers synchronously, so a hot path can skip the await.
   */
  hit(key: string, windowStart: number, windowMs: number, cost?: number): number | Promise<number>;
  /** Counts `cost` hits for several keys at once and returns each one's hits, in order (a store with a round trip
   * per call does them in one). */
  hitMany?(windows: readonly CounterWindow[], cost: number): Promise<number[]>;
  close?(): Promise<void>;
}

interface CounterWindow {
  key: string;
  windowStart: number;
  windowMs: number;
}

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly now: () => number = Date.now,
  ) {}

  async check(bucket: string, subject: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(this.now() / windowMs) * windowMs;
    const hits = await this.store.hit(`${bucket}:${subject}`, windowStart, windowMs);
    return {
      allowed: hits <= rule.limit,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - hits),
      reset: Math.ceil((windowStart + windowMs) / 1000),
    };
  }

  /**
   * Counts `cost` hits for subject in several windows at once (e.g. a minute and an hour). Synchronous when the
   * store is (memory): the data interface checks every request, and an await per window is most of its cost.
   */
  checkWindows(
    bucket: string,
    subject: string,
    rules: readonly RateLimitRule[],
    cost = 1,
  ): RateLimitResult[] | Promise<RateLimitResult[]> {
    const now = this.now();
    if (this.store.hitMany) {
      const windows = rules.map((rule, i) => {
        const windowMs = rule.windowSeconds * 1000;
        return { key: `${bucket}:${i}:${subject}`, windowStart: now - (now % windowMs), windowMs };
      });
      return this.store.hitMany(windows, cost).then((counts) => windowResults(rules, counts, now));
    }
    const hits: Array<number | Promise<number>> = new Array(rules.length);
    let pending = false;
    for (let i = 0; i < rules.length; i++) {
      const windowMs = rules[i].windowSeconds * 1000;
      const h = this.store.hit(`${bucket}:${i}:${subject}`, now - (now % windowMs), windowMs, cost);
      if (typeof h !== 'number') pending = true;
      hits[i] = h;
    }
    if (pending) return Promise.all(hits).then((counts) => windowResults(rules, counts, now));
    return windowResults(rules, hits as number[], now);
  }

  close(): Promise<void> {
    return this.store.close?.() ?? Promise.resolve();
  }
}

function windowResults(rules: readonly RateLimitRule[], counts: readonly number[], now: number): RateLimitResult[] {
  const out: RateLimitResult[] = new Array(rules.length);
  for (let i = 0; i < rules.length; i++) {
    const windowMs = rules[i].windowSeconds * 1000;
    const limit = rules[i].limit;
    out[i] = {
      allowed: counts[i] <= limit,
      limit,
      remaining: counts[i] < limit ? limit - counts[i] : 0,
      reset: Math.ceil((now - (now % windowMs) + windowMs) / 1000),
    };
  }
  return out;
}

/** Counters in this process. `now` is the limiter's clock (expired windows are swept by it). */
export function memoryRateLimitStore(options: { maxKeys?: number; now?: () => number } = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const clock = options.now ?? Date.now;
  const counters = new Map<string, { windowStart: number; hits: number; expires: number }>();
  return {
    hit(key, windowStart, windowMs, cost = 1) {
      const entry = counters.get(key);
      if (entry && entry.windowStart === windowStart) {
        entry.hits += cost;
        return entry.hits;
      }
      if (counters.size >= maxKeys) {
        // Keep memory bounded under a flood of distinct keys: drop expired windows first, then the oldest.
        const now = clock();
        for (const [k, e] of counters) if (e.expires <= now) counters.delete(k);
        if (counters.size >= maxKeys) counters.delete(counters.keys().next().value!);
      }
      counters.set(key, { windowStart, hits: cost, expires: windowStart + windowMs });
      return cost;
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Counters in auth.rate_limits: one upsert statement per check, whatever the number of windows, atomic across
 * instances. Keys are written in sorted order, so that two checks locking the same rows cannot deadlock.
 */
export function postgresRateLimitStore(sql: postgres.Sql): RateLimitStore {
  let lastSweep = 0;
  const hitMany = async (windows: readonly CounterWindow[], cost: number): Promise<number[]> => {
    const sorted = [...windows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const rows = await sql<Array<{ key: string; hits: number }>>`
      insert into auth.rate_limits as r (key, window_start, expires_at, hits)
      select k, s, e, ${cost}::int
      from unnest(${sorted.map((w) => w.key)}::text[], ${sorted.map((w) => iso(w.windowStart))}::timestamptz[],
        ${sorted.map((w) => iso(w.windowStart + w.windowMs))}::timestamptz[]) with ordinality as u(k, s, e, n)
      order by n
      on conflict (key) do update set
        hits = case when r.window_start = excluded.window_start then r.hits + excluded.hits else excluded.hits end,
        window_start = excluded.window_start, expires_at = excluded.expires_at
      returning key, hits`;
    if (Date.now() - lastSweep > 60_000) {
      lastSweep = Date.now();
      // Ended windows are dead weight; any instance may sweep them.
      void sql`delete from auth.rate_limits where expires_at < now()`.catch(() => {});
    }
    const hits = new Map(rows.map((r) => [r.key, r.hits]));
    return windows.map((w) => hits.get(w.key)!);
  };
  return {
    hitMany,
    async hit(key, windowStart, windowMs, cost = 1) {
      const [hits] = await hitMany([{ key, windowStart, windowMs }], cost);
      return hits;
    },
  };
}
