// Finding a dataset as the caller sees it: the lookup runs under the caller's role and claims, so row-level
// security on datasets decides; a dataset that exists but is hidden answers the same as a missing one. A deleted
// auction's datasets are missing to every caller, the service role included (a public report runs as the service
// role, which row-level security does not stop): the functions serve nothing of a deleted auction.
import type postgres from 'postgres';
import { inRequestTransaction } from '@auction-ops/database';
import { functionErrors } from '../errors.js';
import type { Caller } from '../family/function-definition.js';

export interface DatasetColumn {
  name: string;
  source: string | null;
  type: ColumnType;
  nullable: boolean;
  calculated: boolean;
}

export type ColumnType = 'text' | 'integer' | 'numeric' | 'boolean' | 'date' | 'timestamp';

export interface Dataset {
  id: string;
  auction_id: string;
  name: string;
  status: 'pending' | 'importing' | 'ready' | 'failed';
  table_name: string | null;
  columns: DatasetColumn[];
  row_count: number;
  updated_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUuid(value: unknown, field: string): string {
  if (value === undefined || value === null || value === '') throw functionErrors.invalidRequest(field);
  if (typeof value !== 'string' || !UUID.test(value))
    throw functionErrors.invalidRequest(field, `${field} must be a UUID`);
  return value.toLowerCase();
}

/** The dataset as the caller may see it, or NOT_FOUND. */
export async function findDataset(sql: postgres.Sql, caller: Caller, id: string): Promise<Dataset> {
  const rows = await inRequestTransaction(
    sql,
    caller.role,
    caller.claims,
    (tx) => tx<Dataset[]>`
      select d.id, d.auction_id, d.name, d.status, d.table_name, d.columns, d.row_count, d.updated_at
      from public.datasets d
      where d.id = ${id}
        and not exists (select 1 from public.auctions a where a.id = d.auction_id and a.deleted_at is not null)`,
  );
  if (rows.length === 0) throw functionErrors.notFound(`dataset ${id} not found`);
  return rows[0];
}
