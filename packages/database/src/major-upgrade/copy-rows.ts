// Moves every table's rows from the old cluster to the new with COPY (old: TO STDOUT, new: FROM STDIN), a few tables
// at a time, then sets the sequences. The new side runs with session_replication_role = replica, so neither the
// domain's event triggers nor foreign-key checks fire for rows that were checked when they were first written.
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import type { CopiedTable, SequenceValue } from './table-list.js';

interface CopyProgress {
  table: string;
  rows: number;
  done: number;
  total: number;
}

/** Tables copied at once: COPY is one core per side; a few overlap the reads of one with the writes of another. */
const PARALLEL_TABLES = 4;

/**
 * Empties the new cluster's tables (migrations and the roles' setup insert rows of their own, such as the migration
 * ledger, which the old cluster's rows replace), then copies. `newSql` must be a replica-mode pool.
 */
export async function copyRows(
  openSource: () => postgres.Sql,
  newSql: postgres.Sql,
  tables: readonly CopiedTable[],
  onTable: (progress: CopyProgress) => void,
): Promise<number> {
  if (tables.length > 0) await newSql.unsafe(`truncate ${tables.map((t) => t.target).join(', ')}`);
  let next = 0;
  let done = 0;
  let total = 0;
  // Each worker holds one connection on the new side: a pool would pipeline the next query onto one still in COPY.
  // The old side gets a connection per table, closed after it: postgres.js 3.4.9 leaves a connection's socket paused
  // when a COPY TO's last data overflowed the stream's buffer in the chunk that also ended it, and the connection's
  // next query then never completes.
  const worker = async () => {
    const to = await newSql.reserve();
    try {
      while (next < tables.length) {
        const table = tables[next++]!;
        const from = openSource();
        try {
          const sink = await to.unsafe(`copy ${table.target} (${table.columns}) from stdin`).writable();
          const source = await from.unsafe(`copy ${table.target} (${table.columns}) to stdout`).readable();
          await pipeline(source, sink);
        } finally {
          await from.end({ timeout: 1 });
        }
        const [{ rows }] = await to.unsafe<{ rows: number }[]>(`select count(*)::float8 as rows from ${table.target}`);
        total += rows;
        onTable({ table: table.target, rows, done: ++done, total: tables.length });
      }
    } finally {
      to.release();
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_TABLES, tables.length) }, worker));
  return total;
}

export async function setSequences(newSql: postgres.Sql, values: readonly SequenceValue[]): Promise<void> {
  for (const v of values) await newSql`select setval(${v.name}::regclass, ${v.lastValue}::bigint, ${v.isCalled})`;
}
