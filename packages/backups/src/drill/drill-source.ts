// The source's side of a drill: a probe account to sign in with, the state as of one instant (row counts of every
// table and the migration ledger, read in one snapshot), and a commit after that instant archived, so that a
// point-in-time restore can reach the instant and stop there.
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { hashPassword } from '@auction-ops/auth-core';
import { qualified } from '@auction-ops/database';

/** Probe accounts are named so; a drill that died before removing its probe has it removed by the next one. */
const PROBE_DOMAIN = 'auction-ops.invalid';
const probeEmail = (id: string) => `restore-drill-${id}@${PROBE_DOMAIN}`;

export interface Probe {
  id: string;
  email: string;
  /** Random, in memory only: nobody can sign in as a probe left behind. */
  password: string;
}

interface TableCount {
  schema: string;
  name: string;
  rows: number;
}

export interface SourceState {
  /** The instant restored to (millisecond precision, as recovery_target_time is given). */
  at: Date;
  /** Exact row counts of every permanent table. */
  counts: TableCount[];
  /** `package/name checksum` of every applied migration. */
  ledger: string[];
}

const exists = async (sql: postgres.Sql | postgres.TransactionSql, relation: string) =>
  (await sql`select to_regclass(${relation}) is not null as yes`)[0].yes as boolean;

/**
 * A confirmed account with a random password, committed before the instant the drill restores to, and removed from
 * the source right after that instant: the restored copy has it, the source keeps nothing. Undefined without auth.
 */
export async function createProbe(sql: postgres.Sql): Promise<Probe | undefined> {
  if (!(await exists(sql, 'auth.users'))) return undefined;
  await sql`delete from auth.users where email like ${`restore-drill-%@${PROBE_DOMAIN}`}
    and created_at < now() - interval '1 day'`;
  const password = randomBytes(24).toString('base64url');
  const email = probeEmail(randomBytes(6).toString('hex'));
  const [row] = await sql`
    insert into auth.users (email, encrypted_password, email_confirmed_at)
    values (${email}, ${await hashPassword(password)}, now()) returning id`;
  return { id: row.id as string, email, password };
}

export async function removeProbe(sql: postgres.Sql, probe: Probe | undefined): Promise<void> {
  if (probe) await sql`delete from auth.users where id = ${probe.id}`;
}

async function readState(sql: postgres.Sql): Promise<SourceState> {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [{ at }] = await tx`select now() as at`;
    // Unlogged tables are emptied by any recovery (PostgreSQL writes no WAL for them): not compared.
    const tables = await tx`
      select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and c.relpersistence = 'p'
         and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
       order by 1, 2`;
    const counts: TableCount[] = [];
    for (const t of tables) {
      const [{ n }] = await tx.unsafe(`select count(*)::bigint as n from ${qualified(t.schema, t.name)}`);
      counts.push({ schema: t.schema, name: t.name, rows: Number(n) });
    }
    const ledger = (await exists(tx, 'auction_ops.migrations'))
      ? (await tx`select package, name, checksum from auction_ops.migrations order by 1, 2`).map(
          (m) => `${m.package}/${m.name} ${m.checksum}`,
        )
      : [];
    return { at: at as Date, counts, ledger };
  });
}

/**
 * The state as of one instant. The instant is the snapshot's now() cut to the millisecond (the precision the restore
 * takes); a snapshot begun in the same millisecond as the probe's commit is taken again, so that the probe is always
 * on the restored side of the cut.
 */
export async function sourceState(sql: postgres.Sql): Promise<SourceState> {
  const [{ after }] = await sql`select clock_timestamp() as after`;
  for (;;) {
    const state = await readState(sql);
    if (state.at.getTime() > (after as Date).getTime()) return state;
  }
}

/** Ends the current WAL segment and waits until the archiver has it; gives up when it makes no progress for 2 min. */
export async function archiveThroughNow(sql: postgres.Sql, noProgressMs = 120_000): Promise<string> {
  const [{ wal }] = await sql`select pg_walfile_name(pg_switch_wal()) as wal`;
  let progress: string | null = '';
  let deadline = 0;
  for (;;) {
    const [row] = await sql`select last_archived_wal, last_failed_wal from pg_stat_archiver`;
    if (row.last_archived_wal && row.last_archived_wal >= wal) return wal as string;
    if (row.last_archived_wal !== progress) [progress, deadline] = [row.last_archived_wal, Date.now() + noProgressMs];
    if (Date.now() > deadline)
      throw new Error(
        `WAL segment ${wal} was not archived (last archived ${row.last_archived_wal ?? 'none'}, ` +
          `last failed ${row.last_failed_wal ?? 'none'}): the archive cannot reach the drill's instant`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
