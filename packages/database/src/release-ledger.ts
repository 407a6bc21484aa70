// Which release applied each migration (the ledger's `release` column) and which releases started on the database
// (auction_ops.releases). A database that a newer release migrated is refused before anything in it changes: the
// newer release may already have contracted what this one still uses (docs/migrations.md).
import type postgres from 'postgres';

/** Added to the ledger under the migration lock; `release` stays null on rows applied before it existed. */
export const RELEASE_LEDGER = `
  alter table auction_ops.migrations add column if not exists release text;
  create table if not exists auction_ops.releases (
    version text primary key,
    first_started_at timestamptz not null default now(),
    last_started_at timestamptz not null default now()
  );`;

export class NewerReleaseError extends Error {
  override name = 'NewerReleaseError';
}

interface LedgerRow {
  key: string;
  release: string | null;
}

/** The ledger's rows, oldest first; none when there is no ledger. `release` is read through to_jsonb because a
 * ledger written before the column existed must be readable without altering it first. */
async function ledgerRows(sql: postgres.Sql): Promise<LedgerRow[]> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`
    select to_regclass('auction_ops.migrations') is not null as exists`;
  if (!exists) return [];
  return sql<LedgerRow[]>`
    select m.package || '/' || m.name as key, to_jsonb(m) ->> 'release' as release
    from auction_ops.migrations m order by m.applied_at, m.package, m.name`;
}

/** Numeric comparison of dotted versions (0.10.0 after 0.9.1); a pre-release suffix is ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split('-')[0].split('.').map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The one line an operator reads: who migrated the database, what this release does not know, what to do. */
function newerReleaseMessage(unknown: readonly LedgerRow[], release: string): string {
  const versions = unknown.map((row) => row.release);
  const newest = versions.includes(null) ? undefined : (versions as string[]).sort(compareVersions).at(-1);
  const who = newest ? `auction-ops ${newest}` : 'a newer release of auction-ops';
  const what = unknown.length === 1 ? `${unknown[0].key} is` : `${unknown[0].key} and ${unknown.length - 1} more are`;
  const remedy = newest ? `run ${newest} or newer` : 'run that release or newer';
  return `this database was migrated by ${who} (${what} unknown to ${release}); ${remedy}, or restore a backup taken before that upgrade`;
}

/** Throws NewerReleaseError when the ledger lists migrations that `known` (every migration of `release`) lacks. */
export async function refuseNewerDatabase(sql: postgres.Sql, known: ReadonlySet<string>, release: string) {
  const unknown = (await ledgerRows(sql)).filter((row) => !known.has(row.key));
  if (unknown.length > 0) throw new NewerReleaseError(newerReleaseMessage(unknown, release));
}

/** Records that `release` started on the database; returns the release that started on it last before this one. */
export async function recordReleaseStart(sql: postgres.Sql, release: string): Promise<string | undefined> {
  const [previous] = await sql<{ version: string }[]>`
    select version from auction_ops.releases order by last_started_at desc limit 1`;
  await sql`insert into auction_ops.releases (version) values (${release})
    on conflict (version) do update set last_started_at = now()`;
  return previous?.version;
}

interface ReleaseRecord {
  version: string;
  firstStartedAt: Date;
  lastStartedAt: Date;
}

/** The release that started on the database last; none before any release recorded itself. */
export async function lastRelease(sql: postgres.Sql): Promise<ReleaseRecord | undefined> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`
    select to_regclass('auction_ops.releases') is not null as exists`;
  if (!exists) return undefined;
  const [row] = await sql<ReleaseRecord[]>`
    select version, first_started_at as "firstStartedAt", last_started_at as "lastStartedAt"
    from auction_ops.releases order by last_started_at desc limit 1`;
  return row;
}
