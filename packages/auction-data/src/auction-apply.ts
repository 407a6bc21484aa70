// Moves staged rows (archive-staging.ts) into the real tables inside the importing transaction: conflicts first,
// then shared rows (users by e-mail, default categories by name), then, with triggers off, the auction's rows,
// a check that every reference resolves, and the rebuilt analytics rollups.
import type postgres from 'postgres';
import { errors } from './auction-data-errors.js';
import { SHARED_CATEGORIES, SHARED_USERS } from './auction-export.js';
import type { Staged, StagedTable } from './archive-staging.js';
import { quoteIdent, quoteTable, scopeCondition, tableShape, type TableShape, uuidLiteral } from './scope-catalog.js';
import { DATASET_SCHEMA, TABLES, type TableEntry } from './table-map.js';

type Tx = postgres.TransactionSql;
const SHOWN = 5;

const pkJoin = (pk: string[], a: string, b: string) =>
  pk.map((c) => `${a}.${quoteIdent(c)} = ${b}.${quoteIdent(c)}`).join(' and ');

/** Rows of the archive whose ids (or the auction's slug, or dataset tables) already exist here. */
export async function findConflicts(tx: Tx, staged: Staged): Promise<string[]> {
  const found: string[] = [];
  const { id, slug } = staged.header.auction;
  const [a] = await tx`select id, slug from public.auctions where id = ${id} or slug = ${slug}`;
  if (a)
    found.push(a.id === id ? `auction ${id} exists here (slug ${a.slug})` : `the slug "${slug}" is taken by ${a.id}`);
  for (const entry of TABLES) {
    const s = staged.tables.get(entry.table);
    if (!s || s.rows === 0) continue;
    const key =
      entry.table === 'storage.objects' ? ['bucket_id', 'name'] : (await tableShape(tx, entry.table)).primaryKey;
    const rows = await tx.unsafe(
      `select ${key.map((c) => `s.${quoteIdent(c)}::text`).join(` || '/' || `)} as key, count(*) over () as n
       from ${s.stage} s where exists (select 1 from ${quoteTable(entry.table)} t where ${pkJoin(key, 't', 's')})
       limit ${SHOWN}`,
    );
    if (rows.length) found.push(`${entry.table}: ${rows[0]!.n} rows, e.g. ${rows.map((r) => r.key).join(', ')}`);
  }
  // An object row naming a version stored here would give the archive's name to bytes it did not carry.
  const objects = staged.tables.get('storage.objects');
  if (objects?.rows) {
    const taken = await tx.unsafe(
      `select s.version::text as v, count(*) over () as n from ${objects.stage} s
       where exists (select 1 from storage.objects t where t.version = s.version) limit ${SHOWN}`,
    );
    if (taken.length)
      found.push(`storage.objects: ${taken[0]!.n} versions exist here, e.g. ${taken.map((r) => r.v).join(', ')}`);
  }
  for (const s of staged.tables.values())
    if (s.dataset_id) {
      const [t] = await tx`select to_regclass(${quoteTable(s.table)}) as t`;
      if (t?.t) found.push(`table ${s.table} exists`);
    }
  return found;
}

export interface UserMatch {
  matched: number;
  created: { id: string; email: string | null }[];
}

/**
 * The archive's users here: the same id, else the same e-mail (case-insensitive), else created unconfirmed (no
 * password; they sign in after a password reset or an invitation). Fills pg_temp.user_map(old_id, new_id).
 */
export async function matchUsers(tx: Tx, staged: Staged, options: { create: boolean }): Promise<UserMatch> {
  const users = staged.tables.get(SHARED_USERS);
  await tx.unsafe('create temp table user_map (old_id uuid primary key, new_id uuid not null) on commit drop');
  if (!users) return { matched: 0, created: [] };
  await tx.unsafe(`
    insert into pg_temp.user_map (old_id, new_id)
    select s.id, coalesce(
      (select u.id from public.users u where u.id = s.id),
      (select u.id from auth.users u where s.email is not null and lower(u.email) = lower(s.email) and u.deleted_at is null
        order by u.created_at limit 1))
    from ${users.stage} s
    where exists (select 1 from public.users u where u.id = s.id)
       or exists (select 1 from auth.users u where s.email is not null and lower(u.email) = lower(s.email) and u.deleted_at is null)`);
  if (!options.create)
    return { matched: (await tx.unsafe('select count(*)::int as n from pg_temp.user_map'))[0]!.n, created: [] };
  const created = await tx.unsafe<{ id: string; email: string | null }[]>(`
    with missing as (select s.* from ${users.stage} s where s.id not in (select old_id from pg_temp.user_map)),
    made as (
      insert into auth.users (id, email, raw_user_meta_data, invited_at)
      select m.id, m.email, case when m.full_name is null then '{}'::jsonb else jsonb_build_object('full_name', m.full_name) end, now()
      from missing m
      returning id, email)
    select id, email from made`);
  // auth.sync_public_user (a trigger: triggers are still on here) made their public.users rows.
  if (created.length)
    await tx.unsafe(`insert into pg_temp.user_map (old_id, new_id) select id, id from unnest($1::uuid[]) id`, [
      created.map((c) => c.id),
    ] as never);
  return { matched: users.rows - created.length, created };
}

/**
 * Default defect categories (auction_id null) by id, else by name. One missing here becomes the auction's own
 * category, with its id: an archive adds nothing every tenant would see. Its id taken by a category of another
 * auction is refused.
 */
export async function matchCategories(tx: Tx, staged: Staged): Promise<void> {
  await tx.unsafe('create temp table category_map (old_id uuid primary key, new_id uuid) on commit drop');
  const categories = staged.tables.get(SHARED_CATEGORIES);
  if (!categories) return;
  const auctionId = staged.header.auction.id;
  const global = `public.defect_categories c where c.auction_id is null`;
  await tx.unsafe(
    `insert into public.defect_categories (id, auction_id, name)
     select s.id, $1::uuid, s.name from ${categories.stage} s
     where not exists (select 1 from ${global} and lower(c.name) = lower(s.name))
       and not exists (select 1 from public.defect_categories c where c.id = s.id)`,
    [auctionId],
  );
  await tx.unsafe(
    `insert into pg_temp.category_map (old_id, new_id)
     select s.id, coalesce((select c.id from ${global} and c.id = s.id),
       (select c.id from ${global} and lower(c.name) = lower(s.name)),
       (select c.id from public.defect_categories c where c.id = s.id and c.auction_id = $1::uuid))
     from ${categories.stage} s`,
    [auctionId],
  );
  const [taken] = await tx`select old_id from pg_temp.category_map where new_id is null limit 1`;
  if (taken) throw errors.foreignRows(SHARED_CATEGORIES, `category ${taken.old_id} is another auction's`);
}

/** Triggers (events, rollups, pushes) and FK actions stay off for the rest of the transaction. */
export async function triggersOff(tx: Tx, what: string): Promise<void> {
  try {
    await tx.unsafe('set local session_replication_role = replica');
  } catch {
    throw errors.needsSuperuser(what);
  }
}

function selectMapped(shape: TableShape, s: StagedTable): string {
  const present = new Set(s.columns);
  return shape.columns
    .filter((c) => present.has(c))
    .map((c) => {
      const q = `s.${quoteIdent(c)}`;
      if (shape.userColumns.includes(c))
        return `coalesce((select m.new_id from pg_temp.user_map m where m.old_id = ${q}), ${q})`;
      if (shape.categoryColumns.includes(c))
        return `coalesce((select m.new_id from pg_temp.category_map m where m.old_id = ${q}), ${q})`;
      return q;
    })
    .join(', ');
}

/** Deletes the auction's current rows of the tables a restore puts back (children first; triggers are off). */
export async function deleteCurrent(tx: Tx, auctionId: string, withSecrets: boolean): Promise<void> {
  for (const entry of [...TABLES].reverse()) {
    if (entry.role === 'log' || entry.table === 'storage.objects') continue;
    if (entry.role === 'secret' && !withSecrets) continue;
    if (entry.table === 'public.datasets') {
      const tables = await tx<{ table_name: string }[]>`
        select table_name from public.datasets where auction_id = ${auctionId} and table_name is not null`;
      for (const t of tables)
        await tx.unsafe(`drop table if exists ${quoteTable(`${DATASET_SCHEMA}.${t.table_name}`)}`);
    }
    await tx.unsafe(`delete from ${quoteTable(entry.table)} t where ${scopeCondition(entry.scope, auctionId)}`);
  }
}

/** Inserts the staged rows. `keepLogs`: a restore leaves today's log rows and skips the archive's. */
export async function insertStaged(
  tx: Tx,
  staged: Staged,
  options: { keepLogs: boolean; log: (m: string) => void },
): Promise<void> {
  for (const entry of TABLES) {
    const s = staged.tables.get(entry.table);
    if (!s || (entry.role === 'log' && options.keepLogs)) continue;
    const shape = await tableShape(tx, entry.table);
    const cols = shape.columns.filter((c) => s.columns.includes(c));
    const target = `${quoteTable(entry.table)} (${cols.map(quoteIdent).join(', ')})`;
    const overriding = shape.identity.length ? ' overriding system value' : '';
    if (entry.table === 'storage.objects') {
      // An object named the same but of another version is replaced by the archive's (a restore); the same
      // version is already there.
      await tx.unsafe(`delete from storage.objects t using ${s.stage} s
        where t.bucket_id = s.bucket_id and t.name = s.name and t.version <> s.version`);
      await tx.unsafe(`insert into ${target} select ${selectMapped(shape, s)} from ${s.stage} s
        where not exists (select 1 from storage.objects t where t.bucket_id = s.bucket_id and t.name = s.name)`);
    } else {
      await tx.unsafe(`insert into ${target}${overriding} select ${selectMapped(shape, s)} from ${s.stage} s`);
    }
    for (const c of shape.identity)
      await tx.unsafe(
        `select setval(pg_get_serial_sequence($1, $2), greatest((select max(${quoteIdent(c)}) from ${quoteTable(entry.table)}), 1))`,
        [entry.table, c],
      );
    if (entry.table === 'public.datasets') await createDatasetTables(tx, staged);
  }
  options.log('rows written');
}

/**
 * Dataset tables as import-csv makes them: readable under the dataset's membership rule. The name, columns and
 * types are those archive-check.ts let through (identifiers, and types from its fixed list).
 */
async function createDatasetTables(tx: Tx, staged: Staged): Promise<void> {
  for (const s of staged.tables.values()) {
    if (!s.dataset_id || !s.types) continue;
    const table = quoteTable(s.table);
    const cols = s.columns.map((c, i) => `${quoteIdent(c)} ${s.types![i]}`).join(', ');
    await tx.unsafe(`create table ${table} (${cols})`);
    await tx.unsafe(`alter table ${table} enable row level security`);
    await tx.unsafe(
      `create policy dataset_members_read on ${table} for select to authenticated ` +
        `using ((select reporting_data.dataset_visible(${uuidLiteral(s.dataset_id)})))`,
    );
    await tx.unsafe(`grant select on ${table} to authenticated, service_role`);
    await tx.unsafe(`insert into ${table} select * from ${s.stage}`);
  }
}

interface ForeignKey {
  name: string;
  table: string;
  parent: string;
  columns: string[];
  parentColumns: string[];
  onDelete: string;
}

async function foreignKeys(tx: Tx, table: string): Promise<ForeignKey[]> {
  return tx<ForeignKey[]>`
    select c.conname as name, c.conrelid::regclass::text as table, c.confrelid::regclass::text as parent,
      (select array_agg(a.attname order by k.ord) from unnest(c.conkey) with ordinality k(n, ord)
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n) as columns,
      (select array_agg(a.attname order by k.ord) from unnest(c.confkey) with ordinality k(n, ord)
        join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n) as "parentColumns",
      c.confdeltype::text as "onDelete"
    from pg_constraint c where c.contype = 'f' and c.conrelid = ${table}::regclass`;
}

function danglingCondition(fk: ForeignKey): string {
  const notNull = fk.columns.map((c) => `t.${quoteIdent(c)} is not null`).join(' and ');
  const match = fk.columns.map((c, i) => `p.${quoteIdent(fk.parentColumns[i]!)} = t.${quoteIdent(c)}`).join(' and ');
  return `${notNull} and not exists (select 1 from ${quoteTable(fk.parent)} p where ${match})`;
}

/**
 * With triggers off, foreign keys were not enforced: every reference of the auction's rows is checked here.
 * A log row whose parent a restore removed goes the way its key's ON DELETE says (as a cascade would have), and
 * so does, with `usersGone` (a restore), a row naming a user deleted since: the restore does not bring users back.
 */
export async function checkReferences(tx: Tx, auctionId: string, options: { usersGone: boolean }): Promise<void> {
  const problems: string[] = [];
  for (const entry of TABLES as TableEntry[]) {
    if (entry.table === 'storage.objects') continue;
    for (const fk of await foreignKeys(tx, entry.table)) {
      const where = `${scopeCondition(entry.scope, auctionId)} and ${danglingCondition(fk)}`;
      if (entry.role === 'log' || (options.usersGone && fk.parent === 'users')) {
        if (fk.onDelete === 'c') await tx.unsafe(`delete from ${quoteTable(entry.table)} t where ${where}`);
        else if (fk.onDelete === 'n')
          await tx.unsafe(
            `update ${quoteTable(entry.table)} t set ${fk.columns.map((c) => `${quoteIdent(c)} = null`).join(', ')} where ${where}`,
          );
        continue;
      }
      const rows = await tx.unsafe(
        `select count(*) over () as n, t.${quoteIdent(fk.columns[0]!)}::text as v from ${quoteTable(entry.table)} t
         where ${where} limit ${SHOWN}`,
      );
      if (rows.length)
        problems.push(
          `${entry.table}.${fk.columns.join(',')} -> ${fk.parent}: ${rows[0]!.n} rows, e.g. ${rows.map((r) => r.v).join(', ')}`,
        );
    }
  }
  if (problems.length) throw errors.dangling(problems);
}

export async function rebuildRollups(tx: Tx, auctionId: string): Promise<void> {
  const [fn] = await tx`select to_regprocedure('analytics.rebuild(uuid)') as f`;
  if (fn?.f) await tx`select analytics.rebuild(${auctionId}::uuid)`;
}
