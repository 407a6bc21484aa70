// What a postgres_changes subscriber receives of a change, and what the policies judge: both read the row images
// change capture decoded (Postgres text values).
import type { Change, Column } from './change-capture.js';
import type { TupleValues } from './pgoutput.js';

/**
 * The `data` of a change for a reader who may select the columns `readable` accepts: only those columns, and the
 * old row only by its primary key and tenant (the row may no longer be visible to the reader).
 */
export function changePayload(change: Change, readable: (column: string) => boolean): string {
  const { table } = change;
  const columns = table.columns.filter((c) => readable(c.name));
  const keyColumns = new Set([...table.primaryKey, 'auction_id']);
  const record = change.type === 'DELETE' ? {} : jsonRow(columns, change.record);
  const old = change.type === 'INSERT' || !change.old ? {} : jsonRow(columns, change.old, keyColumns);
  return JSON.stringify({
    schema: table.schema,
    table: table.table,
    commit_timestamp: change.commitTimestamp,
    type: change.type,
    columns,
    record,
    old_record: old,
    errors: null,
  });
}

/** The row a change is judged on: the new row, or the old one of a delete. */
export function imageOf(change: Change): TupleValues {
  return change.type === 'DELETE' ? change.old! : change.record;
}

/** The row image the policies judge: text values as Postgres reads them back, JSON columns as JSON. */
export function probeOf(change: Change): unknown {
  const row = imageOf(change);
  const image: Record<string, unknown> = {};
  for (const { name, type } of change.table.columns) {
    const v = row[name];
    if (v !== undefined) image[name] = v !== null && (type === 'json' || type === 'jsonb') ? JSON.parse(v) : v;
  }
  return image;
}

const NUMBER_TYPES = new Set(['int2', 'int4', 'float4', 'float8', 'numeric', 'oid']);

/** Postgres text values as JSON the way realtime-js expects them: numbers, booleans and JSON decoded. */
function jsonRow(columns: readonly Column[], row: TupleValues, only?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, type } of columns) {
    if (only && !only.has(name)) continue;
    const v = row[name];
    if (v === undefined) continue;
    out[name] = v === null ? null : typed(type, v);
  }
  return out;
}

function typed(type: string, v: string): unknown {
  if (type === 'bool') return v === 't';
  if (NUMBER_TYPES.has(type)) return Number(v);
  if (type === 'int8') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  if (type === 'json' || type === 'jsonb') return JSON.parse(v);
  return v;
}
