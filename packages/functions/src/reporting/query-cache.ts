// Report results kept in memory for five minutes, bounded by bytes. Keys carry the dataset's last-import time,
// so an import on any instance makes older entries unreachable; this instance also drops them at once.
import { LRUCache } from 'lru-cache';

export interface CachedBody {
  body: string;
  contentType: string;
  rowCount: number;
}

/** The contract's cache lifetime of a report result (section 8). */
export const QUERY_CACHE_TTL_MS = 5 * 60 * 1000;

export interface QueryCacheOptions {
  maxBytes: number;
  /** Default QUERY_CACHE_TTL_MS. */
  ttlMs?: number;
  /** The clock lifetimes are measured by (default performance.now). */
  now?: () => number;
}

export class QueryCache {
  private readonly cache: LRUCache<string, CachedBody>;

  constructor(options: QueryCacheOptions) {
    this.cache = new LRUCache<string, CachedBody>({
      maxSize: options.maxBytes,
      ttl: options.ttlMs ?? QUERY_CACHE_TTL_MS,
      // A given clock is read on every check (lru-cache otherwise reuses a reading for 1 ms, by a timer).
      ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
      sizeCalculation: (v, k) => Math.max(1, Buffer.byteLength(v.body) + k.length),
    });
  }

  static key(parts: { datasetId: string; version: string; fingerprint: string; limit: number; format: string }) {
    return `${parts.datasetId}|${parts.version}|${parts.fingerprint}|${parts.limit}|${parts.format}`;
  }

  get(key: string): CachedBody | undefined {
    return this.cache.get(key);
  }

  set(key: string, value: CachedBody): void {
    this.cache.set(key, value);
  }

  dropDataset(datasetId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${datasetId}|`)) this.cache.delete(key);
  }
}
