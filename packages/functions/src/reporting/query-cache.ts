// Report results kept in memory for five minutes, bounded by bytes. Keys carry the dataset's last-import time,
// so an import on any instance makes older entries unreachable; this instance also drops them at once. They also
// carry the role the statement ran as (the row-level security it ran under): a public report run as the service
// role is never served to a member's ad-hoc statement, nor the other way round.
import { LRUCache } from 'lru-cache';

export interface CachedBody {
  body: string;
  contentType: string;
  rowCount: number;
}

/** The contract's cache lifetime of a report result (section 8). */
export const QUERY_CACHE_TTL_MS = 5 * 60 * 1000;

interface QueryCacheOptions {
  maxBytes: number;
  /** Default QUERY_CACHE_TTL_MS. */
  ttlMs?: number;
  /** The clock lifetimes are measured by (default performance.now). */
  now?: () => number;
}

export class QueryCache {
  private readonly cache: LRUCache<string, CachedBody>;
  private readonly maxBytes: number;

  constructor(options: QueryCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.cache = new LRUCache<string, CachedBody>({
      maxSize: options.maxBytes,
      ttl: options.ttlMs ?? QUERY_CACHE_TTL_MS,
      // A given clock is read on every check (lru-cache otherwise reuses a reading for 1 ms, by a timer).
      ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
      sizeCalculation: entrySize,
    });
  }

  static key(parts: {
    datasetId: string;
    version: string;
    scope: string;
    fingerprint: string;
    limit: number;
    format: string;
  }) {
    return `${parts.datasetId}|${parts.version}|${parts.scope}|${parts.fingerprint}|${parts.limit}|${parts.format}`;
  }

  get(key: string): CachedBody | undefined {
    return this.cache.get(key);
  }

  /** `ttlMs` for an entry that has lived elsewhere already (the shared tier). */
  set(key: string, value: CachedBody, ttlMs?: number): void {
    this.cache.set(key, value, ttlMs === undefined ? undefined : { ttl: ttlMs });
  }

  /** Whether an entry is small enough to be kept at all. */
  fits(key: string, value: CachedBody): boolean {
    return entrySize(value, key) <= this.maxBytes;
  }

  dropDataset(datasetId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${datasetId}|`)) this.cache.delete(key);
  }
}

function entrySize(value: CachedBody, key: string): number {
  return Math.max(1, Buffer.byteLength(value.body) + key.length);
}
