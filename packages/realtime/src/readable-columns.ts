// Per role and table, the columns that role may SELECT: a change never carries a column its reader lacks. Read
// again after a few seconds, since grants can change at any time, and once at a time per role and table.
import type postgres from 'postgres';
import type { TableInfo } from './change-capture.js';
import { relName } from './access-groups.js';

const GRANTS_TTL_MS = 5_000;

type TableName = Pick<TableInfo, 'schema' | 'table'>;

export class ReadableColumns {
  private readonly known = new Map<string, { at: number; columns: Set<string> }>();
  private readonly loads = new Map<string, Promise<void>>();

  constructor(private readonly sql: postgres.Sql) {}

  /** Reads (again, once its answer is old) which columns `role` may SELECT of `table`. */
  load(table: TableName, role: string): Promise<void> {
    const key = keyOf(table, role);
    const known = this.known.get(key);
    if (known && Date.now() - known.at < GRANTS_TTL_MS) return Promise.resolve();
    let loading = this.loads.get(key);
    if (!loading) {
      loading = this.sql<{ attname: string }[]>`
        select attname from pg_attribute
         where attrelid = ${relName(table)}::regclass and attnum > 0 and not attisdropped
           and has_column_privilege(${role}, attrelid, attnum, 'SELECT')`
        .then((rows) => {
          this.known.set(key, { at: Date.now(), columns: new Set(rows.map((r) => r.attname)) });
        })
        .finally(() => this.loads.delete(key));
      this.loads.set(key, loading);
    }
    return loading;
  }

  /** Whether `role` may read `column` of `table`, as last read (false before the first read). */
  readable(table: TableName, role: string): (column: string) => boolean {
    const known = this.known.get(keyOf(table, role));
    return (column) => known?.columns.has(column) ?? false;
  }

  /** Forgets every answer (the schema may have changed). */
  clear(): void {
    this.known.clear();
  }
}

const keyOf = (table: TableName, role: string) => `${role}|${table.schema}.${table.table}`;
