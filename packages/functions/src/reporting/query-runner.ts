// Runs a validated report query: READ ONLY transaction under the caller's role and claims, a statement timeout,
// the extended protocol (one statement, no stacking), the dataset's table bound to the name `dataset`, and a
// row cap one past the limit so truncation is known.
import type postgres from 'postgres';
import { inRequestTransaction, quoteIdent } from '@auction-ops/database';
import { functionErrors } from '../errors.js';
import type { Caller } from '../family/function-definition.js';

interface QueryResult {
  columns: Array<{ name: string; type: string }>;
  rows: Record<string, unknown>[];
  truncated: boolean;
}

const TYPE_NAMES: Record<number, string> = {
  16: 'boolean',
  20: 'integer',
  21: 'integer',
  23: 'integer',
  700: 'numeric',
  701: 'numeric',
  1700: 'numeric',
  1082: 'date',
  1114: 'timestamp',
  1184: 'timestamp',
  114: 'json',
  3802: 'json',
};

export async function runReportQuery(
  sql: postgres.Sql,
  caller: Caller,
  tableName: string,
  statement: string,
  options: { limit: number; timeoutMs: number },
): Promise<QueryResult> {
  // The user's text sits alone on its lines inside a derived table: a trailing line comment cannot reach the
  // closing parenthesis; `statement` is the validator's cut of exactly one SELECT, without a trailing semicolon.
  const text =
    `with dataset as (select * from reporting_data.${quoteIdent(tableName)})\n` +
    `select * from (\n${statement}\n) as report limit $1`;
  try {
    return await inRequestTransaction(sql, caller.role, caller.claims, async (tx) => {
      await tx`set transaction read only`;
      await tx`select set_config('statement_timeout', ${String(options.timeoutMs)}, true)`;
      const result = await tx.unsafe(text, [options.limit + 1], { prepare: false });
      const rows = [...result] as Record<string, unknown>[];
      const truncated = rows.length > options.limit;
      if (truncated) rows.length = options.limit;
      const columns = (result.columns ?? []).map((c) => ({ name: c.name, type: TYPE_NAMES[c.type] ?? 'text' }));
      return { columns, rows: rows.map(numbersFor(result.columns ?? [])), truncated };
    });
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === '57014') throw functionErrors.execution('the query ran past its time limit', 'statement_timeout');
    if (typeof e.code === 'string') throw functionErrors.execution(e.message ?? 'the query failed', e.code);
    throw error;
  }
}

/** Postgres sends int8 and numeric as text to keep precision; charts want numbers, so exact ones become numbers. */
function numbersFor(
  columns: Array<{ name: string; type: number }>,
): (row: Record<string, unknown>) => Record<string, unknown> {
  const numeric = columns.filter((c) => c.type === 20 || c.type === 1700).map((c) => c.name);
  return (row) => {
    for (const name of numeric) {
      const v = row[name];
      if (typeof v === 'string') {
        const n = Number(v);
        if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) row[name] = n;
      }
    }
    return row;
  };
}
