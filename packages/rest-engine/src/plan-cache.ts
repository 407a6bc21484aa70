// A bounded cache of planned and compiled reads. A GET or HEAD's plan and statement depend only on the method, the
// path, the query string, four headers and the schema cache, never on the caller (the role and claims go into the
// context statement), so repeated reads (list pages, polling, dashboards) skip parse, plan and compile.
// Writes are not cached: their plans depend on the body. The engine starts a new cache on every schema reload.
import type { CompiledRequest } from './compile/statement-compiler.js';
import type { Plan } from './plan/types.js';

export interface CachedPlan {
  readonly plan: Plan;
  readonly compiled: CompiledRequest | null;
}

/** Longer keys are not cached: they would let one client fill the cache with large strings. */
const MAX_KEY = 2048;

interface PlanKeyInput {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export function planKey(req: PlanKeyInput): string | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  const h = req.headers;
  const key =
    `${req.method} ${req.path}?${req.search}\n${h.accept ?? ''}\n${h.prefer ?? ''}\n` +
    `${h.range ?? ''}\n${h['accept-profile'] ?? ''}`;
  return key.length <= MAX_KEY ? key : null;
}

/** Least recently used eviction: a Map keeps insertion order, and a hit moves its key to the end. */
export class PlanCache {
  private readonly entries = new Map<string, CachedPlan>();
  /** The most recently used key: a hit on it is already in place (a client polling one read moves nothing). */
  private newest: string | undefined;
  constructor(private readonly limit: number) {}

  get(key: string): CachedPlan | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined && key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.newest = key;
    }
    return hit;
  }

  set(key: string, value: CachedPlan): void {
    if (this.limit <= 0) return;
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      if (oldest === this.newest) this.newest = undefined;
    }
    // A key set again keeps its place in the Map; only a new one is the newest.
    if (!this.entries.has(key)) this.newest = key;
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
