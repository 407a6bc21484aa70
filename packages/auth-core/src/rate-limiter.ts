// Fixed-window rate limits with a pluggable counter store: in memory (one instance) or Postgres (shared by
// every instance using the database). Each check counts one hit and reports limit, remaining and reset time
// for the X-RateLimit-* headers.
import type postgres from 'postgres';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
}

export interface RateLimitStore {
  /** Counts one hit for key in the window starting at windowStart (ms) and returns the hits so far. */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
  close?(): Promise<void>;
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

  close(): Promise<void> {
    return this.store.close?.() ?? Promise.resolve();
  }
}

export function memoryRateLimitStore(options: { maxKeys?: number } = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const counters = new Map<string, { windowStart: number; hits: number; expires: number }>();
  return {
    async hit(key, windowStart, windowMs) {
      const entry = counters.get(key);
      if (entry && entry.windowStart === windowStart) return ++entry.hits;
      if (counters.size >= maxKeys) {
        // Keep memory bounded under a flood of distinct keys: drop expired windows first, then the oldest.
        const now = Date.now();
        for (const [k, e] of counters) if (e.expires <= now) counters.delete(k);
        if (counters.size >= maxKeys) counters.delete(counters.keys().next().value!);
      }
      counters.set(key, { windowStart, hits: 1, expires: windowStart + windowMs });
      return 1;
    },
  };
}

/** Counters in auth.rate_limits: one upsert per hit, atomic across instances. */
export function postgresRateLimitStore(sql: postgres.Sql): RateLimitStore {
  let lastSweep = 0;
  return {
    async hit(key, windowStart, windowMs) {
      const start = new Date(windowStart);
      const [row] = await sql<Array<{ hits: number }>>`
        insert into auth.rate_limits as r (key, window_start, expires_at, hits)
        values (${key}, ${start}, ${new Date(windowStart + windowMs)}, 1)
        on conflict (key) do update set
          hits = case when r.window_start = excluded.window_start then r.hits + 1 else 1 end,
          window_start = excluded.window_start, expires_at = excluded.expires_at
        returning hits`;
      if (Date.now() - lastSweep > 60_000) {
        lastSweep = Date.now();
        // Ended windows are dead weight; any instance may sweep them.
        void sql`delete from auth.rate_limits where expires_at < now()`.catch(() => {});
      }
      return row.hits;
    },
  };
}
