// The tables whose rows an upgrade carries: every leaf table (rows live in leaves, not in partitioned parents) of
// every schema but PostgreSQL's own and extensions' (their rows come with the extension).
import type postgres from 'postgres';
import { qualified, quoteIdent } from '../quote-ident.js';

export interface CopiedTable {
  /** schema.name, quoted. */
  readonly target: string;
  /** The columns COPY carries, quoted: generated ones are computed again by the new cluster. */
  readonly columns: string;
}

export async function leafTables(sql: postgres.Sql): Promise<CopiedTable[]> {
  const rows = await sql<{ schema: string; name: string; columns: string[] }[]>`
    select n.nspname as schema, c.relname as name,
           array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0
                    and not a.attisdropped and a.attgenerated = '' order by a.attnum) as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
       and not exists (select from pg_depend e where e.classid = 'pg_class'::regclass and e.objid = c.oid
                          and e.deptype = 'e')
     order by c.relpages desc, 1, 2`;
  return rows.map((r) => ({ target: qualified(r.schema, r.name), columns: r.columns.map(quoteIdent).join(', ') }));
}

export interface SequenceValue {
  readonly name: string;
  readonly lastValue: string;
  readonly isCalled: boolean;
}

/** Every sequence's position, to be set again with setval (its rows are not table rows). */
export async function sequenceValues(sql: postgres.Sql): Promise<SequenceValue[]> {
  const rows = await sql<{ name: string }[]>`
    select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'S' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
       and not exists (select from pg_depend e where e.classid = 'pg_class'::regclass and e.objid = c.oid
                          and e.deptype = 'e')
     order by 1`;
  const values: SequenceValue[] = [];
  for (const { name } of rows) {
    const [seq] = await sql.unsafe<{ last_value: string; is_called: boolean }[]>(
      `select last_value::text, is_called from ${name}`,
    );
    values.push({ name, lastValue: seq!.last_value, isCalled: seq!.is_called });
  }
  return values;
}
