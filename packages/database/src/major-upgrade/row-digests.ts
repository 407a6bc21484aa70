// Evidence that the copy is whole: per table a row count and a digest of its rows' text, per sequence its position.
// The digest sums two 64-bit halves of each row's md5: independent of row order (no sort of a large table, no
// collation involved) and bounded in memory, unlike an md5 of all rows' text concatenated in order.
import type postgres from 'postgres';
import type { CopiedTable, SequenceValue } from './table-list.js';

const HALF = (from: number) => `coalesce(sum(('x' || substr(h, ${from}, 16))::bit(64)::bigint::numeric), 0)::text`;

/**
 * table -> "rows/digest" over the columns COPY carried (the old cluster's; a column the new one adds on its own,
 * such as the ledger's, is not part of the evidence). The sessions must agree on TimeZone and the output settings.
 */
export async function rowDigests(sql: postgres.Sql, tables: readonly CopiedTable[]): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  await Promise.all(
    tables.map(async (t) => {
      const [row] = await sql.unsafe<{ digest: string }[]>(
        `select count(*)::text || '/' || ${HALF(1)} || '/' || ${HALF(17)} as digest
           from (select md5(row(${t.columns})::text) as h from ${t.target}) s`,
      );
      digests.set(t.target, row!.digest);
    }),
  );
  return digests;
}

export function sequenceDigests(values: readonly SequenceValue[]): Map<string, string> {
  return new Map(values.map((v) => [`sequence ${v.name}`, `${v.lastValue}/${v.isCalled}`]));
}

/** Lines naming each table or sequence whose evidence differs. */
export function compareDigests(before: Map<string, string>, after: Map<string, string>): string[] {
  const differences: string[] = [];
  for (const [key, value] of before) {
    const other = after.get(key);
    if (other !== value) differences.push(`${key}: ${value} (old) vs ${other ?? 'absent'} (new)`);
  }
  for (const key of after.keys()) if (!before.has(key)) differences.push(`${key} (new only)`);
  return differences;
}
