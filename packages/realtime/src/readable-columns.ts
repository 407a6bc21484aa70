// Per role and table, the columns that role may SELECT: a change never carries a column its reader lacks. Read
// again after a few seconds, since grants can change at any time, and once at a time per role and table.
import type postgres from 'postgres';
import type { TableInfo } from './change-capture.js';
import { relName } from './access-groups.js';
import { ExpiringAnswers } from './expiring-answers.js';

const GRANTS_TTL_MS = 5_000;

type TableName = Pick<TableInfo, 'schema' | 'table'>;

export class ReadableColumns {
  private readonly answers = new ExpiringAnswers<Set<string>>(GRANTS_TTL_MS);

  constructor(private readonly sql: postgres.Sql) {}

  /** Reads (again, once its answer is old) which columns `role` may SELECT of `table`. */
  async load(table: TableName, role: string): Promise<void> {
    await this.answers.get(keyOf(table, role), async () => {
      const rows = await this.sql<{ attname: string }[]>`
        select attname from pg_attribute
         where attrelid = ${relName(table)}::regclass and attnum > 0 and not attisdropped
           and has_column_privilege(${role}, attrelid, attnum, 'SELECT')`;
      return new Set(rows.map((r) => r.attname));
    });
  }

  /** Whether `role` may read `column` of `table`, as last read (false before the first read). */
  readable(table: TableName, role: string): (column: string) => boolean {
    const columns = this.answers.last(keyOf(table, role))?.value;
    return (column) => columns?.has(column) ?? false;
  }

  /** Forgets every answer (the schema may have changed). */
  clear(): void {
    this.answers.clear();
  }
}

const keyOf = (table: TableName, role: string) => `${role}|${table.schema}.${table.table}`;
