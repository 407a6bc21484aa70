// import-csv: admins load a CSV into a dataset and watch it happen as Server-Sent Events. Everything that can be
// refused (caller, free disk space, options, size) is refused before the stream starts, with an HTTP status; after
// that, a fatal failure is an `error` event and the dataset returns to its previous state.
import { isOutOfSpace } from '@auction-ops/database';
import type postgres from 'postgres';
import { FunctionError, functionErrors } from '../../errors.js';
import { defineFunction } from '../../family/function-definition.js';
import type { SharedQueryCache } from '../shared-query-cache.js';
import { loadCsv } from './csv-loader.js';
import { claimDataset, lockImport, publishImport, rollbackImport } from './dataset-import.js';
import { parseImportOptions } from './import-options.js';
import { readImportSource } from './import-source.js';
import { createSseStream } from './sse-stream.js';

export interface ImportDeps {
  sql: postgres.Sql;
  ownerSql: postgres.Sql;
  queryCache: SharedQueryCache;
  importMaxBytes: number;
  /** DATA_DIR's free-space floor (@auction-ops/database): an import under it is refused before it starts. */
  diskFloor?: { admit(operation: 'import', bytes?: number): boolean };
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

export const importCsv = defineFunction<ImportDeps>({
  name: 'import-csv',
  access: 'user',
  limit: { max: 5, per: 'hour' },
  async handle(req, deps) {
    // The rows go into PostgreSQL (its tables and WAL) and may be spooled on the way: count the whole file.
    const declared = Number(req.request.headers.get('content-length') ?? Number.NaN);
    if (deps.diskFloor && !deps.diskFloor.admit('import', Number.isFinite(declared) ? declared : deps.importMaxBytes))
      throw functionErrors.insufficientStorage();
    const source = await readImportSource(req.request, deps.importMaxBytes);
    let options: ReturnType<typeof parseImportOptions>;
    let dataset: Awaited<ReturnType<typeof claimDataset>>;
    let unlock: () => Promise<void>;
    try {
      options = parseImportOptions(source.options);
      dataset = await claimDataset(deps.sql, req.caller, options);
      unlock = await lockImport(deps.ownerSql, dataset).catch(async (error) => {
        await deps.ownerSql`update public.datasets set status = ${dataset.previousStatus} where id = ${dataset.id}`;
        throw error;
      });
    } catch (error) {
      source.csv.destroy();
      await source.cleanup();
      throw error;
    }
    const sse = createSseStream();
    const started = performance.now();
    sse.send('start', { dataset_id: dataset.id, name: dataset.name, mode: options.mode, bytes: source.bytes });
    // Runs on after the response is returned, and after the client has gone.
    void (async () => {
      try {
        const result = await loadCsv(deps.ownerSql, dataset, options, source.csv, source.bytes, {
          schema: (columns) =>
            sse.send('schema', {
              columns: columns.map((c) => ({
                name: c.name,
                source: c.source,
                type: c.type,
                nullable: c.nullable,
                calculated: c.calculated,
              })),
            }),
          progress: (p) => sse.send('progress', p),
          rowErrors: (errors) => sse.send('row_errors', { errors }),
        });
        const columns = result.columns.map(({ name, source, type, nullable, calculated }) => ({
          name,
          source,
          type,
          nullable,
          calculated,
        }));
        const rowCount = await publishImport(deps.ownerSql, dataset, columns, result.imported);
        await deps.queryCache.dropDataset(dataset.id);
        sse.send('complete', {
          dataset_id: dataset.id,
          row_count: rowCount,
          rows_failed: result.failed,
          columns,
          duration_ms: Math.round(performance.now() - started),
        });
      } catch (error) {
        // A disk that filled during the import (PostgreSQL's disk_full, or ENOSPC spooling) is said as such.
        const known =
          error instanceof FunctionError
            ? error
            : isOutOfSpace(error)
              ? functionErrors.insufficientStorage()
              : undefined;
        if (!(error instanceof FunctionError))
          deps.log.error('import failed', { dataset: dataset.id, error: String(error) });
        sse.send('error', {
          code: known ? known.code : 'INTERNAL_ERROR',
          message: known ? known.message : 'the import failed',
        });
        await rollbackImport(deps.ownerSql, dataset.id).catch((e) =>
          deps.log.error('import rollback failed', { dataset: dataset.id, error: String(e) }),
        );
      } finally {
        source.csv.destroy();
        await source.cleanup();
        await unlock().catch(() => {});
        sse.close();
      }
    })();
    return sse.response;
  },
});
