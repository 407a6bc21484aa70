// Demo data generator: two auctions with people of every role, locations with operating hours in two time zones,
// submission types, `days` days of lot submissions with entries, inspections with defects, rock reports in every
// state, channels with threads and reactions. Bulk rows come from generate_series in a handful of statements so
// the seed is fast enough to serve benchmarks; `scale` multiplies the submission, inspection and message volume.
// This module runs the steps in one transaction (bulk mode, rollups, counts); the rows come from demo-auctions.ts,
// demo-lot-history.ts, demo-rock-reports.ts and demo-chat.ts.
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { AUCTIONS, PEOPLE } from './demo-data.js';
import { insertAuctions, insertLocations, insertPeople, type SeededAuction } from './demo-auctions.js';
import { insertChat } from './demo-chat.js';
import {
  insertDefects,
  insertEntries,
  insertInspections,
  insertSubmissions,
  type LotHistory,
} from './demo-lot-history.js';
import { insertRockReports } from './demo-rock-reports.js';

export interface SeedOptions {
  /** Volume multiplier, 1-1000 (1 = about 3,100 submissions over 60 days). */
  scale?: number;
  /** History length in days (default 60). */
  days?: number;
  now?: Date;
  /** Password hashing as the auth service does it (argon2id), injected to keep this package free of auth code. */
  hashPassword: (password: string) => Promise<string>;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface SeededUser {
  email: string;
  password: string;
  fullName: string;
  roles: Record<string, string>;
}
export interface SeedResult {
  auctions: SeededAuction[];
  users: SeededUser[];
  counts: Record<string, number>;
  /** false when the database refused session_replication_role and triggers (and events) ran for every row. */
  bulkMode: boolean;
}

const STEPS = [
  'people',
  'auctions',
  'locations',
  'submissions',
  'entries',
  'inspections',
  'defects',
  'rock reports',
  'chat',
  'rollups',
  'statistics',
  'analyze',
];

/** The first free slug suffix: '' for a fresh database, '-2', '-3', ... when demo data already exists. */
async function freeSuffix(sql: postgres.Sql): Promise<string> {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    const taken = await sql`select 1 from public.auctions where slug = any(${AUCTIONS.map((a) => a.slug + suffix)})`;
    if (taken.length === 0) return suffix;
  }
}

export async function seedDemo(sql: postgres.Sql, options: SeedOptions): Promise<SeedResult> {
  const scale = Math.max(1, Math.floor(options.scale ?? 1));
  const days = options.days ?? 60;
  const now = options.now ?? new Date();
  let step = 0;
  const progress = (label: string) => options.onProgress?.(step++, STEPS.length, label);

  progress('people');
  const suffix = await freeSuffix(sql);
  const people = await Promise.all(
    PEOPLE.map(async (p) => {
      const password = `demo-${randomBytes(9).toString('base64url')}`;
      return {
        ...p,
        email: `${p.key}@${AUCTIONS[0]!.slug}${suffix}.example.com`,
        password,
        hash: await options.hashPassword(password),
      };
    }),
  );

  const result = (await sql.begin(async (tx) => {
    const ids = await insertPeople(tx, people, now);
    // Bulk mode skips row triggers (fills, checks, events): every row below is generated consistent, and the
    // history should not flood the webhook outbox. Needs superuser; without it the seed is slower but the same.
    let bulkMode = true;
    try {
      await tx.savepoint((sp) => sp`set local session_replication_role = replica`);
    } catch {
      bulkMode = false;
    }

    progress('auctions');
    const { auctions, membersOf, roles } = await insertAuctions(tx, people, ids, suffix, now, days);

    progress('locations');
    await insertLocations(tx, auctions, now, days);

    const auctionIds = auctions.map((a) => a.id);
    const history: LotHistory = { tx, auctionIds, ids, now, days, scale };
    progress('submissions');
    await insertSubmissions(history);
    progress('entries');
    await insertEntries(history);
    progress('inspections');
    await insertInspections(history);
    progress('defects');
    await insertDefects(history);

    progress('rock reports');
    await insertRockReports(tx, auctions, membersOf, now);

    progress('chat');
    await insertChat(tx, auctions, membersOf, now, days, scale);

    progress('rollups');
    if (bulkMode) await tx`set local session_replication_role = origin`;
    // Bulk mode skipped the triggers that keep the analytics rollups; one pass per auction builds them.
    if (bulkMode) for (const id of auctionIds) await tx`select analytics.rebuild(${id})`;

    progress('statistics');
    const [counts] = await tx`
      select
        (select count(*) from public.lot_submissions where auction_id = any(${auctionIds}::uuid[]))::int as
          lot_submissions,
        (select count(*) from public.lot_submission_entries where auction_id = any(${auctionIds}::uuid[]))::int as
          lot_submission_entries,
        (select count(*) from public.quality_inspections where auction_id = any(${auctionIds}::uuid[]))::int as
          quality_inspections,
        (select count(*) from public.quality_defects where auction_id = any(${auctionIds}::uuid[]))::int as
          quality_defects,
        (select count(*) from public.problem_reports where auction_id = any(${auctionIds}::uuid[]))::int as
          problem_reports,
        (select count(*) from public.messages where auction_id = any(${auctionIds}::uuid[]))::int as messages,
        (select count(*) from public.message_reactions where auction_id = any(${auctionIds}::uuid[]))::int as
          message_reactions`;
    return {
      auctions,
      users: people.map((p) => ({ email: p.email, password: p.password, fullName: p.fullName, roles: roles[p.key]! })),
      counts: counts as unknown as Record<string, number>,
      bulkMode,
    };
  })) as SeedResult;
  // Fresh statistics: until autovacuum gets to the new rows the planner guesses (one location's week took 142 ms
  // instead of 5 right after a large seed).
  progress('analyze');
  await sql`analyze`;
  options.onProgress?.(STEPS.length, STEPS.length, 'done');
  return result;
}
