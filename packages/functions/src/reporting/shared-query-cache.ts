// execute-query's result cache in two tiers: this process's memory first, then a table in PostgreSQL that every
// process and instance shares, so a repeated report is a hit whichever of them answers. Keys carry the dataset's
// version (its last import), so an import anywhere makes older entries unreachable everywhere. The table is
// bounded by bytes: past its bound the oldest entries go first (a hot entry lives on in the memory tiers).
import type postgres from 'postgres';
import { type CachedBody, QUERY_CACHE_TTL_MS, type QueryCache } from './query-cache.js';

interface SharedTier {
  sql: postgres.Sql;
  /** Bytes (keys and bodies) the table may hold, give or take what processes write between two sweeps. */
  maxBytes: number;
}

/** A process sweeps the table after writing this share of its bound, so a sweep's cost is spread over writes. */
const SWEEP_EVERY = 1 / 16;

export class SharedQueryCache {
  private writtenSinceSweep = 0;

  /** `shared` null keeps results in this process only (QUERY_CACHE_SHARED=false). */
  constructor(
    private readonly memory: QueryCache,
    private readonly shared: SharedTier | null,
    private readonly ttlMs = QUERY_CACHE_TTL_MS,
  ) {}

  async get(key: string): Promise<CachedBody | undefined> {
    const local = this.memory.get(key);
    if (local || !this.shared) return local;
    const [row] = await this.shared.sql<{ body: string; content_type: string; row_count: number; ttl_ms: number }[]>`
      select body, content_type, row_count,
             ceil(extract(epoch from expires_at - clock_timestamp()) * 1000)::int as ttl_ms
        from reporting_data.report_cache
       where key = ${key} and expires_at > clock_timestamp()`;
    if (!row) return undefined;
    const value = { body: row.body, contentType: row.content_type, rowCount: row.row_count };
    // Kept here for what is left of its lifetime, not a fresh five minutes.
    this.memory.set(key, value, row.ttl_ms);
    return value;
  }

  async set(key: string, datasetId: string, value: CachedBody): Promise<void> {
    this.memory.set(key, value);
    if (!this.shared || !this.memory.fits(key, value)) return;
    const { sql, maxBytes } = this.shared;
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value.body);
    if (bytes > maxBytes) return;
    // Expired entries go with each write (by the expiry index, cheap).
    await sql`
      with expired as (delete from reporting_data.report_cache where expires_at <= clock_timestamp())
      insert into reporting_data.report_cache (key, dataset_id, body, content_type, row_count, expires_at)
      values (${key}, ${datasetId}, ${value.body}, ${value.contentType}, ${value.rowCount},
              clock_timestamp() + make_interval(secs => ${this.ttlMs / 1000}))
      on conflict (key) do update
        set body = excluded.body, content_type = excluded.content_type, row_count = excluded.row_count,
            expires_at = excluded.expires_at`;
    this.writtenSinceSweep += bytes;
    if (this.writtenSinceSweep >= maxBytes * SWEEP_EVERY) {
      this.writtenSinceSweep = 0;
      await evictOldest(sql, maxBytes);
    }
  }

  /** After an import: older results are unreachable by key already; this frees their space at once. */
  async dropDataset(datasetId: string): Promise<void> {
    this.memory.dropDataset(datasetId);
    if (this.shared) await this.shared.sql`delete from reporting_data.report_cache where dataset_id = ${datasetId}`;
  }
}

/** Deletes the oldest entries (all live the same five minutes: oldest = soonest to expire) past `maxBytes`. */
async function evictOldest(sql: postgres.Sql, maxBytes: number): Promise<void> {
  await sql`
    delete from reporting_data.report_cache c
     using (select key, sum(bytes) over (order by expires_at desc, key) as newer_bytes
              from reporting_data.report_cache) r
     where c.key = r.key and r.newer_bytes > ${maxBytes}`;
}
