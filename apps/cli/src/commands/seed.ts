// `auction-ops seed --demo [--scale N] [--days N]`: fills the database with the demo auctions (see @auction-ops/domain's
// seedDemo), showing a progress bar, then prints the people's e-mails and passwords.
import postgres from 'postgres';
import { hashPassword } from '@auction-ops/auth-core';
import { migrate } from '@auction-ops/database';
import { seedDemo, type SeedResult } from '@auction-ops/domain';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '@auction-ops/server/version';
import { UsageError } from './super-admin.js';

const USAGE = `usage: auction-ops seed --demo [--scale N] [--days D]
  N: whole number 1-1000, multiplies the data volume (100 is about 312,000 submissions over 60 days)
  D: whole number 1-3660, days of history (default 60)`;
const LIMITS = { scale: 1000, days: 3660 } as const;

export function parseSeedArgs(args: string[]): { scale: number; days?: number } {
  let demo = false;
  const values: { scale: number; days?: number } = { scale: 1 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = /^--(scale|days)(=|$)/.exec(arg)?.[1] as keyof typeof LIMITS | undefined;
    if (arg === '--demo') demo = true;
    else if (name) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
      if (!value || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > LIMITS[name])
        throw new UsageError(USAGE);
      values[name] = Number(value);
    } else throw new UsageError(`unknown argument ${arg}\n${USAGE}`);
  }
  if (!demo) throw new UsageError(USAGE);
  return values;
}

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

export async function seedCommand(args: string[], ctx: { ownerUrl: string }): Promise<void> {
  const { scale, days } = parseSeedArgs(args);
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
