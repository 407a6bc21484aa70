// The orphan-bytes sweep: removes backend keys no storage.objects row points at. They come from a process that
// died between placing an upload's bytes and committing its row, or from a failed post-commit removal.
//
// Safe while uploads are in flight: bytes are placed inside the row's transaction, just before its commit,
// so a key with no committed row is either an orphan or a transaction still open. Only keys last modified
// more than `graceMs` ago are considered; with a grace far longer than any write transaction (they never
// include the request body, which is spooled first), an in-flight upload is never touched. Rows are read
// after the keys were listed, so a row committed in between is seen. Running on several instances at once is
// harmless: removal is idempotent. The parts of resumable uploads still in progress are referenced too.
import type postgres from 'postgres';
import { asCaller, SERVICE } from './caller-transaction.js';
import type { StorageBackend, StorageLog } from './storage-backend.js';

export interface SweepOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  /** Keys younger than this are left alone (in-flight uploads). */
  graceMs: number;
  now?: () => number;
  log?: StorageLog;
}

export interface SweepResult {
  scanned: number;
  removed: string[];
}

export async function sweepOrphans(o: SweepOptions): Promise<SweepResult> {
  const cutoff = (o.now ?? Date.now)() - o.graceMs;
  const result: SweepResult = { scanned: 0, removed: [] };
  for await (const page of o.backend.scan()) {
    result.scanned += page.length;
    const old = page.filter((entry) => entry.modifiedMs < cutoff).map((entry) => entry.key);
    if (old.length === 0) continue;
    const referenced = await asCaller(
      o.sql,
      SERVICE,
      (tx) => tx<{ key: string }[]>`
      select o.bucket_id || '/' || o.version as key
      from unnest(${old}::text[]) k join storage.objects o
        on o.bucket_id = split_part(k, '/', 1) and o.version = split_part(k, '/', 2)
      union all
      select u.bucket_id || '/' || p.part as key
      from storage.tus_uploads u cross join unnest(u.parts) p(part)
      where u.bucket_id || '/' || p.part = any(${old}::text[])`,
    );
    const keep = new Set(referenced.map((r) => r.key));
    const orphans = old.filter((key) => !keep.has(key));
    if (orphans.length === 0) continue;
    await o.backend.remove(orphans);
    result.removed.push(...orphans);
  }
  if (result.removed.length) o.log?.('storage: removed orphaned bytes', { count: result.removed.length });
  return result;
}

export interface SweepSchedule {
  /** The sweep in progress or the last one (tests wait on it). */
  readonly last: Promise<SweepResult | undefined>;
  stop(): Promise<void>;
}

/** Runs the sweep right after start and then every `intervalMs`, one at a time; 0 disables it. */
export function scheduleSweep(options: SweepOptions & { intervalMs: number }): SweepSchedule {
  let last: Promise<SweepResult | undefined> = Promise.resolve(undefined);
  if (options.intervalMs <= 0)
    return {
      get last() {
        return last;
      },
      stop: async () => {},
    };
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    last = sweepOrphans(options)
      .catch((error: unknown) => {
        options.log?.('storage: orphan sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      })
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, options.intervalMs);
  first.unref();
  timer.unref();
  return {
    get last() {
      return last;
    },
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await last;
    },
  };
}
