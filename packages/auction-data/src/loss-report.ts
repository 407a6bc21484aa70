// What a restore will lose, compared table by table between the auction's rows now and the staged rows of the
// restore point: rows written since (removed), rows changed since (reverted), rows deleted since (back again).
import type postgres from 'postgres';
import type { Staged } from './archive-staging.js';
import { quoteIdent, quoteTable, scopeCondition, tableShape } from './scope-catalog.js';
import { TABLES } from './table-map.js';

export interface TableLoss {
  removed: number;
  reverted: number;
  back: number;
  /** Some ids of removed and reverted rows. */
  ids: string[];
}

export interface LossReport {
  tables: Record<string, TableLoss>;
}

const SHOWN = 5;

export async function lossReport(tx: postgres.TransactionSql, staged: Staged, auctionId: string): Promise<LossReport> {
  const tables: Record<string, TableLoss> = {};
  for (const entry of TABLES) {
    const s = staged.tables.get(entry.table);
    if (!s || entry.role !== 'data' || entry.table === 'storage.objects') continue;
    const shape = await tableShape(tx, entry.table);
    if (!shape.primaryKey.length) continue;
    const join = shape.primaryKey.map((c) => `s.${quoteIdent(c)} = t.${quoteIdent(c)}`).join(' and ');
    const key = (alias: string) => shape.primaryKey.map((c) => `${alias}.${quoteIdent(c)}::text`).join(` || '/' || `);
    const cols = shape.columns.filter((c) => s.columns.includes(c)).map(quoteIdent);
    const row = (alias: string) => `row(${cols.map((c) => `${alias}.${c}`).join(', ')})::text`;
    const live = `(select * from ${quoteTable(entry.table)} t where ${scopeCondition(entry.scope, auctionId)})`;
    const [r] = await tx.unsafe(`
      select
        (select count(*) from ${live} t where not exists (select 1 from ${s.stage} s where ${join}))::int as removed,
        (select count(*) from ${live} t join ${s.stage} s on ${join} where ${row('t')} is distinct from ${row('s')})::int as reverted,
        (select count(*) from ${s.stage} s where not exists (select 1 from ${live} t where ${join}))::int as back,
        array(select ${key('t')} from ${live} t where not exists (select 1 from ${s.stage} s where ${join})
          union all
          select ${key('t')} from ${live} t join ${s.stage} s on ${join} where ${row('t')} is distinct from ${row('s')}
          limit ${SHOWN}) as ids`);
    if (r && (r.removed || r.reverted || r.back)) tables[entry.table] = r as unknown as TableLoss;
  }
  return { tables };
}

export function describeLoss(report: LossReport): string {
  const entries = Object.entries(report.tables);
  if (!entries.length) return 'nothing differs from the restore point';
  return entries
    .map(([table, l]) => {
      const parts = [
        l.removed && `${l.removed} written since (removed)`,
        l.reverted && `${l.reverted} changed since (reverted)`,
        l.back && `${l.back} deleted since (back again)`,
      ].filter(Boolean);
      return `  ${table}: ${parts.join(', ')}${l.ids.length ? `; e.g. ${l.ids.join(', ')}` : ''}`;
    })
    .join('\n');
}
