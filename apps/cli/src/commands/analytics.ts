// `auction-ops analytics verify|rebuild [--auction ID]`: compares the analytics rollups with the rows they
// summarise (exit 1 and a list of the differing buckets when they disagree), or recomputes them.
import postgres from 'postgres';
import { withDatabase } from '../database.js';

const SHOWN = 20;

interface AnalyticsArgs {
  action: 'verify' | 'rebuild';
  auctionId: string | null;
}

export function runAnalytics(args: AnalyticsArgs): Promise<void> {
  return withDatabase(async (db) => {
    process.exitCode = await analyticsCommand(args, db);
  });
}

/** Returns the process exit code: 0 when the rollups match (or were rebuilt), 1 on a difference. */
export async function analyticsCommand(
  { action, auctionId }: AnalyticsArgs,
  ctx: { ownerUrl: string },
): Promise<number> {
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    if (action === 'rebuild') {
      const started = performance.now();
      await sql`select analytics.rebuild(${auctionId})`;
      console.log(`Rebuilt the analytics rollups in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      return 0;
    }
    const diffs = await sql`select * from analytics.differences(${auctionId})`;
    if (diffs.length === 0) {
      console.log('The analytics rollups match their base rows.');
      return 0;
    }
    console.log(`${diffs.length} rollup buckets differ from their base rows:`);
    const show = (v: unknown) => (v ? JSON.stringify(v) : 'none');
    for (const d of diffs.slice(0, SHOWN)) {
      const where = d.location_id ? ` location ${d.location_id}` : '';
      const bucket = `${d.rollup}${where} ${JSON.stringify(d.bucket)}`;
      console.log(`  ${bucket}: stored ${show(d.stored)}, expected ${show(d.expected)}`);
    }
    if (diffs.length > SHOWN) console.log(`  ... and ${diffs.length - SHOWN} more`);
    console.log('Run `auction-ops analytics rebuild` to recompute them.');
    return 1;
  } finally {
    await sql.end();
  }
}
