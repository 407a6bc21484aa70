// The subscription tier of a caller, for the data interface's rate limits: the highest tier among the auctions the
// user belongs to, cached per user for a short TTL so the limit check costs no query on most requests. A tier
// change (an auction upgraded, a member added or removed) takes effect within the TTL; see docs/limits.md.
// The composition root builds it (services/rate-limit-services.ts).
import type postgres from 'postgres';

export type Tier = 'free' | 'pro' | 'enterprise';

export interface TierCache {
  /** The user's tier: a value while cached, else a promise of the looked-up one. */
  tierOf(userId: string): Tier | Promise<Tier>;
  /** Forgets one user's tier (or every user's), so the next request looks it up again. */
  forget(userId?: string): void;
}

interface TierCacheOptions {
  /** Owner pool: the lookup reads memberships across tenants, beside row-level security. */
  sql: postgres.Sql;
  ttlMs: number;
  now?: () => number;
  /** Users kept at most; the oldest entry goes first when full. */
  maxUsers?: number;
  onError?: (error: unknown) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIERS: readonly Tier[] = ['free', 'pro', 'enterprise'];

export function createTierCache(options: TierCacheOptions): TierCache {
  const { sql, ttlMs } = options;
  const now = options.now ?? Date.now;
  const maxUsers = options.maxUsers ?? 100_000;
  const cached = new Map<string, { tier: Tier; expires: number }>();
  // One lookup per user at a time: a burst of first requests shares it.
  const inFlight = new Map<string, Promise<Tier>>();

  const lookUp = async (userId: string): Promise<Tier> => {
    try {
      const [row] = await sql<Array<{ rank: number }>>`
        select coalesce(max(case a.subscription_tier when 'enterprise' then 2 when 'pro' then 1 else 0 end), 0)::int
          as rank
        from public.auction_members m join public.auctions a on a.id = m.auction_id
        where m.user_id = ${userId}::uuid`;
      const tier = TIERS[row.rank] ?? 'free';
      if (cached.size >= maxUsers) cached.delete(cached.keys().next().value!);
      cached.set(userId, { tier, expires: now() + ttlMs });
      return tier;
    } catch (error) {
      // Not cached: the next request tries again. Free is the safe answer meanwhile.
      options.onError?.(error);
      return 'free';
    } finally {
      inFlight.delete(userId);
    }
  };

  return {
    tierOf(userId) {
      const entry = cached.get(userId);
      if (entry && entry.expires > now()) return entry.tier;
      // A subject that is not a user id (a service's own token) has no memberships.
      if (!UUID.test(userId)) return 'free';
      let pending = inFlight.get(userId);
      if (!pending) {
        pending = lookUp(userId);
        inFlight.set(userId, pending);
      }
      return pending;
    },
    forget(userId) {
      if (userId === undefined) cached.clear();
      else cached.delete(userId);
    },
  };
}
