// The purge of deleted auctions past their grace period (domain/0031-auction-soft-delete.sql): one auction per
// transaction, claimed with FOR UPDATE SKIP LOCKED so several instances share the work without purging one twice;
// domain.purge_auction removes the rows (the cascade), the objects' rows and the datasets' tables and emits
// auction.purged; the objects' bytes are removed after the commit (a crash in between leaves them to the orphan
// sweep, never a row without bytes).
import type postgres from 'postgres';

interface PurgeOptions {
  sql: postgres.Sql;
  /** Removes backend keys (`<bucket>/<version>`), e.g. the storage service's backend; absent without storage. */
  removeKeys?: (keys: string[]) => Promise<void>;
  /** The instant deciding what is due (tests pass a later one instead of waiting out the grace period). */
  now?: Date;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

interface PurgedAuction {
  id: string;
  objects: number;
}

/** Purges every deleted auction whose purge_after is at or before `now`; returns what it purged. */
export async function purgeDueAuctions(o: PurgeOptions): Promise<PurgedAuction[]> {
  const now = o.now ?? new Date();
  const purged: PurgedAuction[] = [];
  for (;;) {
    const one = await o.sql.begin(async (tx) => {
      const [due] = await tx<{ id: string }[]>`
        select id from public.auctions
         where deleted_at is not null and purge_after <= ${now}
         order by purge_after, id limit 1
           for update skip locked`;
      if (!due) return undefined;
      const keys = await tx<{ bucket_id: string; version: string }[]>`
        select bucket_id, version from domain.purge_auction(${due.id}::uuid, ${now}::timestamptz)`;
      return { id: due.id, keys: keys.map((k) => `${k.bucket_id}/${k.version}`) };
    });
    if (!one) return purged;
    if (one.keys.length > 0 && o.removeKeys) {
      await o.removeKeys(one.keys).catch((error) =>
        o.log?.warn('auction purge: could not remove the bytes of some objects (the orphan sweep will)', {
          auction_id: one.id,
          error: String(error),
        }),
      );
    }
    purged.push({ id: one.id, objects: one.keys.length });
  }
}

/** Writes the grace period into the database, where the delete trigger reads it (every process writes the same). */
export async function syncDeletionSettings(sql: postgres.Sql, graceDays: number): Promise<void> {
  const seconds = Math.round(graceDays * 86_400);
  await sql`update domain.deletion_settings set grace = make_interval(secs => ${seconds}), updated_at = now()
             where grace is distinct from make_interval(secs => ${seconds})`;
}
