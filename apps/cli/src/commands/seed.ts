// `auction-ops seed --demo [--scale N] [--days N]`: fills the database with the demo auctions (see @auction-ops/domain's
// seedDemo), showing a progress bar, then prints the people's e-mails and passwords.
import postgres from 'postgres';
import { hashPassword } from '@auction-ops/auth-core';
import { migrate } from '@auction-ops/database';
import { seedDemo, type SeedResult } from '@auction-ops/domain';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '@auction-ops/server/version';
import { withDatabase } from '../database.js';

/** A one-line progress bar on stderr (plain lines when stderr is not a terminal). */
function progressBar(
  stream: NodeJS.WriteStream = process.stderr,
): (done: number, total: number, label: string) => void {
  const width = 30;
  return (done, total, label) => {
    const filled = Math.round((done / total) * width);
    const percent = String(Math.round((done / total) * 100)).padStart(3);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${label}`;
    if (stream.isTTY) stream.write(`\r${line.padEnd(width + 30)}${done === total ? '\n' : ''}`);
    else stream.write(`${line}\n`);
  };
}

function formatSeedResult(result: SeedResult, ms: number): string {
  const lines = [`Seeded ${result.auctions.length} auctions in ${(ms / 1000).toFixed(1)} s:`];
  for (const a of result.auctions) lines.push(`  ${a.name} (slug ${a.slug}, ${a.timezone}, id ${a.id})`);
  lines.push('', 'Rows:', ...Object.entries(result.counts).map(([k, v]) => `  ${k.padEnd(24)} ${v}`));
  lines.push('', 'Sign in with (passwords are shown once; keep them or reseed):');
  const emailWidth = Math.max(...result.users.map((u) => u.email.length));
  for (const u of result.users) {
    const roles = Object.entries(u.roles)
      .map(([slug, role]) => `${role}@${slug}`)
      .join(', ');
    lines.push(`  ${u.email.padEnd(emailWidth)}  ${u.password}  ${u.fullName} (${roles})`);
  }
  if (!result.bulkMode)
    lines.push('', 'note: the database user cannot disable triggers, so events were written for the demo history.');
  return lines.join('\n');
}

/** Seeding applies pending migrations first: like migrate, it may make the database. */
export function runSeed(args: { scale: number; days?: number }): Promise<void> {
  return withDatabase((db) => seedCommand(args, db), { create: true });
}

export async function seedCommand(
  { scale, days }: { scale: number; days?: number },
  ctx: { ownerUrl: string },
): Promise<void> {
  await migrate(ctx.ownerUrl, migrationSets, () => {}, version);
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    const result = await seedDemo(sql, { scale, days, hashPassword, onProgress: progressBar() });
    console.log(formatSeedResult(result, performance.now() - started));
  } finally {
    await sql.end();
  }
}
