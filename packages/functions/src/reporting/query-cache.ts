// Report results kept in memory for five minutes, bounded by bytes. Keys carry the dataset's last-import time,
// so an import on any instance makes older entries unreachable; this instance also drops them at once.
import { LRUCache } from 'lru-cache';

export interface CachedBody {
  body: string;
  contentType: string;
  rowCount: number;
}

export class QueryCache {
  private readonly cache: LRUCache<string, CachedBody>;

  constructor(options: { maxBytes: number; ttlMs: number }) {
    this.cache = new LRUCache<string, CachedBody>({
      maxSize: options.maxBytes,
      ttl: options.ttlMs,
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
