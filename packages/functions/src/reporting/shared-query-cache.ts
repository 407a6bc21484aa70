// execute-query's result cache in two tiers: this process's memory first, then a table in PostgreSQL that every
// process and instance shares, so a repeated report is a hit whichever of them answers. Keys carry the dataset's
// version (its last import), so an import anywhere makes older entries unreachable everywhere.
import type postgres from 'postgres';
import { type CachedBody, QUERY_CACHE_TTL_MS, type QueryCache } from './query-cache.js';

export class SharedQueryCache {
  /** `shared` null keeps results in this process only (QUERY_CACHE_SHARED=false). */
  constructor(
    private readonly memory: QueryCache,
    private readonly shared: postgres.Sql | null,
    private readonly ttlMs = QUERY_CACHE_TTL_MS,
  ) {}

  async get(key: string): Promise<CachedBody | undefined> {
    const local = this.memory.get(key);
    if (local || !this.shared) return local;
    const [row] = await this.shared<{ body: string; content_type: string; row_count: number; ttl_ms: number }[]>`
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
    // Expired entries go with each write: writes follow a query's miss, so the table holds at most the results of
    // the last five minutes.
    await this.shared`
      with expired as (delete from reporting_data.report_cache where expires_at <= clock_timestamp())
      insert into reporting_data.report_cache (key, dataset_id, body, content_type, row_count, expires_at)
      values (${key}, ${datasetId}, ${value.body}, ${value.contentType}, ${value.rowCount},
              clock_timestamp() + make_interval(secs => ${this.ttlMs / 1000}))
      on conflict (key) do update
        set body = excluded.body, content_type = excluded.content_type, row_count = excluded.row_count,
            expires_at = excluded.expires_at`;
  }

  /** After an import: older results are unreachable by key already; this frees their space at once. */
  async dropDataset(datasetId: string): Promise<void> {
    this.memory.dropDataset(datasetId);
    if (this.shared) await this.shared`delete from reporting_data.report_cache where dataset_id = ${datasetId}`;
  }
}
