// The life of one import: claim the dataset under the caller's rights, hold a lock while loading validated rows
// into a staging table with COPY, then make them visible in one transaction (create, append or replace). A crash
// leaves a staging table and an `imports` row whose lock is free: recoverAbandonedImports rolls it back.
import type postgres from 'postgres';
import { inRequestTransaction, quoteIdent } from '@auction-ops/database';
import { functionErrors } from '../../errors.js';
import type { Caller } from '../../family/function-definition.js';
import type { DatasetColumn } from '../dataset-access.js';
import type { ImportOptions } from './import-options.js';

export interface ClaimedDataset {
  id: string;
  name: string;
  liveTable: string | null;
  columns: DatasetColumn[] | undefined;
  rowCount: number;
  /** The status to return to when the import fails: `failed` for a new dataset. */
  previousStatus: string;
  staging: string;
  mode: ImportOptions['mode'];
}

const LOCK_CLASS = "hashtext('auction-ops:dataset-import')";

/** Creates the dataset or marks an existing one `importing`, as the caller (row-level security decides). */
export async function claimDataset(sql: postgres.Sql, caller: Caller, o: ImportOptions): Promise<ClaimedDataset> {
  if (caller.role === 'anon') throw functionErrors.unauthorized();
  return inRequestTransaction(sql, caller.role, caller.claims, async (tx) => {
    // A deleted auction takes no import, from the service role either (its policies stop everyone else; under
    // them the deleted auction is not even seen here, and the insert or update below is refused as before).
    const [deleted] = await tx`select 1 from public.auctions where id = ${o.auctionId} and deleted_at is not null`;
    if (deleted) throw functionErrors.notFound(`auction ${o.auctionId} not found`);
    if (!o.datasetId) {
      const [row] = await tx<{ id: string; name: string }[]>`
        insert into public.datasets (auction_id, name, description, status)
        values (${o.auctionId}, ${o.name ?? ''}, ${o.description ?? null}, 'importing')
        returning id, name`.catch(forbiddenOnPolicy);
      return {
        ...row,
        liveTable: null,
        columns: undefined,
        rowCount: 0,
        previousStatus: 'failed',
        staging: stagingName(row.id),
        mode: o.mode,
      };
    }
    const [found] = await tx<{ auction_id: string; status: string }[]>`
      select auction_id, status from public.datasets where id = ${o.datasetId}`;
    if (!found) throw functionErrors.notFound(`dataset ${o.datasetId} not found`);
    if (found.auction_id !== o.auctionId)
      throw functionErrors.validation('the dataset belongs to another auction than auction_id', 'dataset_id');
    if (found.status === 'importing') throw functionErrors.validation('an import of this dataset is already running');
    const [row] = await tx<
      { id: string; name: string; table_name: string | null; columns: DatasetColumn[]; row_count: number }[]
    >`
      update public.datasets set status = 'importing' where id = ${o.datasetId}
      returning id, name, table_name, columns, row_count`.catch(forbiddenOnPolicy);
    if (!row) throw functionErrors.forbidden('only admins and owners of the auction may import data');
    return {
      id: row.id,
      name: row.name,
      liveTable: row.table_name,
      columns: row.table_name ? row.columns : undefined,
      rowCount: row.row_count,
      previousStatus: found.status,
      staging: stagingName(row.id),
      mode: o.mode,
    };
  });
}

function forbiddenOnPolicy(error: { code?: string }): never {
  if (error.code === '42501') throw functionErrors.forbidden('only admins and owners of the auction may import data');
  throw error;
}

function stagingName(datasetId: string): string {
  return `ds_${datasetId.replaceAll('-', '')}_${Date.now().toString(36)}`;
}

/**
 * Takes the dataset's import lock on a reserved connection and records the import, so a crash is recognisable.
 * Returns the function that releases the lock (and the connection).
 */
export async function lockImport(ownerSql: postgres.Sql, d: ClaimedDataset): Promise<() => Promise<void>> {
  const conn = await ownerSql.reserve();
  const [{ locked }] = await conn.unsafe(`select pg_try_advisory_lock(${LOCK_CLASS}, hashtext($1)) as locked`, [d.id]);
  if (!locked) {
    conn.release();
    throw functionErrors.validation('an import of this dataset is already running');
  }
  await ownerSql`
    insert into reporting_data.imports (dataset_id, staging_table, mode, previous_status)
    values (${d.id}, ${d.staging}, ${d.mode}, ${d.previousStatus})
    on conflict (dataset_id) do update set staging_table = excluded.staging_table, mode = excluded.mode,
      previous_status = excluded.previous_status, started_at = now()`;
  return async () => {
    try {
      await conn.unsafe(`select pg_advisory_unlock(${LOCK_CLASS}, hashtext($1))`, [d.id]);
    } finally {
      conn.release();
    }
  };
}

const SQL_TYPES = {
  text: 'text',
  integer: 'bigint',
  numeric: 'numeric',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
};

/** The staging table, already readable under the dataset's membership rule once it goes live. */
export async function createStagingTable(ownerSql: postgres.Sql, d: ClaimedDataset, columns: readonly DatasetColumn[]) {
  const table = `reporting_data.${quoteIdent(d.staging)}`;
  const cols = columns.map((c) => `${quoteIdent(c.name)} ${SQL_TYPES[c.type]}`).join(', ');
  // DDL takes no parameters: the dataset id is a UUID from our own row, checked here before it becomes a literal.
  if (!/^[0-9a-f-]{36}$/.test(d.id)) throw new Error('unexpected dataset id');
  await ownerSql.begin(async (tx) => {
    await tx.unsafe(`create table ${table} (${cols})`);
    await tx.unsafe(`alter table ${table} enable row level security`);
    await tx.unsafe(
      `create policy dataset_members_read on ${table} for select to authenticated ` +
        `using ((select reporting_data.dataset_visible('${d.id}'::uuid)))`,
    );
    await tx.unsafe(`grant select on ${table} to authenticated, service_role`);
  });
}

/** Makes the loaded rows visible in one transaction and marks the dataset ready. */
export async function publishImport(
  ownerSql: postgres.Sql,
  d: ClaimedDataset,
  columns: readonly DatasetColumn[],
  imported: number,
): Promise<number> {
  return ownerSql.begin(async (tx) => {
    let table = d.staging;
    let rowCount = imported;
    if (d.mode === 'append' && d.liveTable) {
      const names = columns.map((c) => quoteIdent(c.name)).join(', ');
      await tx.unsafe(
        `insert into reporting_data.${quoteIdent(d.liveTable)} (${names}) ` +
          `select ${names} from reporting_data.${quoteIdent(d.staging)}`,
      );
      await tx.unsafe(`drop table reporting_data.${quoteIdent(d.staging)}`);
      table = d.liveTable;
      rowCount = d.rowCount + imported;
    } else if (d.liveTable) {
      await tx.unsafe(`drop table if exists reporting_data.${quoteIdent(d.liveTable)}`);
    }
    await tx`
      update public.datasets set status = 'ready', table_name = ${table}, row_count = ${rowCount},
        columns = ${tx.json(columns as unknown as postgres.JSONValue)}, updated_at = now()
      where id = ${d.id}`;
    await tx`delete from reporting_data.imports where dataset_id = ${d.id}`;
    return rowCount;
  });
}

/** Undoes a failed import: drops the staging table and returns the dataset to its previous status. */
export async function rollbackImport(ownerSql: postgres.Sql, datasetId: string): Promise<void> {
  await ownerSql.begin(async (tx) => {
    const [row] = await tx<{ staging_table: string; previous_status: string }[]>`
      delete from reporting_data.imports where dataset_id = ${datasetId} returning staging_table, previous_status`;
    if (!row) return;
    await tx.unsafe(`drop table if exists reporting_data.${quoteIdent(row.staging_table)}`);
    await tx`update public.datasets set status = ${row.previous_status}, updated_at = now() where id = ${datasetId}`;
  });
}

/** Rolls back every recorded import whose lock nobody holds: its server died. Safe on any number of instances. */
export async function recoverAbandonedImports(ownerSql: postgres.Sql): Promise<number> {
  const rows = await ownerSql<{ dataset_id: string }[]>`select dataset_id from reporting_data.imports`;
  let recovered = 0;
  for (const { dataset_id: id } of rows) {
    const conn = await ownerSql.reserve();
    try {
      const [{ locked }] = await conn.unsafe(`select pg_try_advisory_lock(${LOCK_CLASS}, hashtext($1)) as locked`, [
        id,
      ]);
      if (!locked) continue;
      try {
        await rollbackImport(ownerSql, id);
        recovered++;
      } finally {
        await conn.unsafe(`select pg_advisory_unlock(${LOCK_CLASS}, hashtext($1))`, [id]);
      }
    } finally {
      conn.release();
    }
  }
  return recovered;
}
