// Data-at-scale benchmark (`pnpm bench data`, through scripts/bench-data.ts): seeds the demo at two scales
// (BENCH_DATA_SCALES, default 10,100) into databases of one embedded cluster, then prints, for each contract read
// (contract-reads.ts), the p50 of BENCH_RUNS (default 11) request-like transactions (role and JWT claims set as the
// REST engine sets them) as a team member at each scale, the growth between the scales, the owner / service-role
// ratio, and the same SQL run bare as the table owner (the floor, no row-level security). The service role and the
// bare run carry the owner's `sub` claim: RPCs that answer for the caller (unread counts) then compute the owner's
// answer, so the ratio prices row-level security alone. Then the write cost of
// create_lot_submission_with_entries, a message insert and a defect insert with the analytics rollup triggers
// against the same writes with them disabled. Prints the load average: the machine is shared. Asserts nothing.
// BENCH_DATA_DIR keeps the cluster in that directory and reuses its seeded databases on the next run (pending
// migrations applied, then vacuumed and analyzed): a scale-100 seed takes minutes. BENCH_DATA_READS (names, comma-
// separated, matched as substrings) picks reads; BENCH_WRITES=0 skips the writes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { authenticatorUrl, ensureRoles, migrate, startEmbeddedPostgres } from '@auction-ops/database';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, seedDemo } from '../src/index.js';
import { contractReads, readTargets, type ContractRead } from './contract-reads.js';

// The smoke run (`pnpm bench:smoke`, BENCH_SMOKE=1): scales 1 and 2, a few runs and writes.
const SMOKE = process.env.BENCH_SMOKE === '1';
const SCALES = (process.env.BENCH_DATA_SCALES ?? (SMOKE ? '1,2' : '10,100')).split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? (SMOKE ? 3 : 11));
const WRITES = Number(process.env.BENCH_WRITES ?? (SMOKE ? 4 : 40));
const KEEP_DIR = process.env.BENCH_DATA_DIR;
const READS = process.env.BENCH_DATA_READS?.split(',').filter(Boolean);

/** The request's role and JWT claims; role null: no role switch (bare, as the table owner), claims only. */
type Caller = { sub: string; role: 'authenticated' | 'service_role' | null };
/** p50 wall time and p50 CPU time of the request's backend, in ms. */
interface Cost {
  wall: number;
  cpu: number;
}
interface Measured {
  member: Cost;
  owner: Cost;
  service: Cost;
  bare: Cost;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** CPU time the backend process has used, in ms (Linux scheduler statistics, nanoseconds). */
function backendCpu(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/**
 * One request-like transaction: role and claims for the transaction, then the statement. Wall time of the whole
 * transaction; CPU time of the backend during the statement, which the other processes on a loaded machine
 * hardly move (the leader's only: parallel workers' time is not counted).
 */
async function timed(
  sql: postgres.Sql,
  caller: Caller,
  run: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<Cost> {
  const started = performance.now();
  let cpu = 0;
  await sql.begin(async (tx) => {
    const [{ pid }] = caller.role
      ? await tx`select pg_backend_pid() as pid, set_config('role', ${caller.role}, true),
          set_config('request.jwt.claims', ${JSON.stringify(caller)}, true)`
      : await tx`select pg_backend_pid() as pid,
          set_config('request.jwt.claims', ${JSON.stringify({ sub: caller.sub })}, true)`;
    const before = backendCpu(pid as number);
    await run(tx);
    cpu = backendCpu(pid as number) - before;
  });
  return { wall: performance.now() - started, cpu };
}

const p50Cost = (xs: Cost[]): Cost => ({ wall: p50(xs.map((x) => x.wall)), cpu: p50(xs.map((x) => x.cpu)) });

async function p50Of(sql: postgres.Sql, caller: Caller, read: ContractRead): Promise<Cost> {
  const costs: Cost[] = [];
  for (let i = 0; i < RUNS; i++) costs.push(await timed(sql, caller, (tx) => tx.unsafe(read.sql, read.params)));
  return p50Cost(costs);
}

interface ScaleDb {
  owner: postgres.Sql;
  request: postgres.Sql;
  people: Record<string, string>;
  auctionId: string;
  /** The seed's "now": the end of its history, which the reads' periods end at. */
  now: Date;
}

/** What a run needs of a seed; kept as the database's comment, whose presence also says the seed finished. */
interface SeedFacts {
  now: string;
  auctionId: string;
  people: Record<string, string>;
}

/** Seeds the demo at `scale` into database bench_<scale>, or reuses it when a kept cluster already has it. */
async function seedScale(clusterUrl: string, password: string, scale: number): Promise<ScaleDb> {
  const name = `bench_${scale}`;
  const admin = postgres(clusterUrl, { max: 1, onnotice: () => {} });
  const [existing] = await admin`select shobj_description(oid, 'pg_database') as facts from pg_database
    where datname = ${name}`;
  let facts = existing?.facts ? (JSON.parse(existing.facts as string) as SeedFacts) : undefined;
  if (existing && !facts) await admin.unsafe(`drop database ${name}`); // a seed that did not finish
  if (!facts) await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString(), [authMigrations, domainMigrations]);
  const owner = postgres(url.toString(), { max: 2, onnotice: () => {} });
  if (facts) {
    console.log(`scale ${scale}: reusing the seed of ${facts.now}`);
  } else {
    const now = new Date();
    const started = performance.now();
    const seeded = await seedDemo(owner, {
      scale,
      now,
      hashPassword: async (p) => p,
      onProgress: (done, total, label) => process.stderr.write(`  seed ${scale}: ${done}/${total} ${label}\n`),
    });
    console.log(`seed scale ${scale}: ${((performance.now() - started) / 1000).toFixed(1)} s`, seeded.counts);
    const people: Record<string, string> = {};
    for (const u of seeded.users) {
      const [row] = await owner`select id from auth.users where email = ${u.email}`;
      people[u.email.split('@')[0]!] = row!.id as string;
    }
    facts = { now: now.toISOString(), auctionId: seeded.auctions[0]!.id, people };
    await owner.unsafe(`comment on database ${name} is ${quoteLiteral(JSON.stringify(facts))}`);
  }
  // As after autovacuum settles: visibility maps set (index-only scans), statistics current.
  await owner`vacuum analyze`;
  const request = postgres(authenticatorUrl(url.toString(), password), { max: 2, onnotice: () => {} });
  return { owner, request, people: facts.people, auctionId: facts.auctionId, now: new Date(facts.now) };
}

const quoteLiteral = (s: string) => `'${s.replaceAll("'", "''")}'`;

async function measureReads(db: ScaleDb): Promise<Record<string, Measured>> {
  const reads = contractReads(await readTargets(db.owner, db.auctionId, db.people.lot1!, db.now));
  const out: Record<string, Measured> = {};
  for (const [name, read] of Object.entries(reads)) {
    if (READS && !READS.some((r) => name.includes(r))) continue;
    await p50Of(db.request, { sub: db.people.lot1!, role: 'authenticated' }, read); // warm the caches
    out[name] = {
      member: await p50Of(db.request, { sub: db.people.lot1!, role: 'authenticated' }, read),
      owner: await p50Of(db.request, { sub: db.people.owner!, role: 'authenticated' }, read),
      service: await p50Of(db.request, { sub: db.people.owner!, role: 'service_role' }, read),
      bare: await p50Of(db.owner, { sub: db.people.owner!, role: null }, read),
    };
  }
  return out;
}

const ROLLUP_TRIGGERS: [string, string][] = [
  ['public.lot_submissions', 'rollup_submissions_insert'],
  ['public.lot_submission_entries', 'rollup_entries_insert'],
  ['public.quality_defects', 'rollup_defects_insert'],
];

/** p50 of each write with the rollup triggers and without, alternating in rounds so that load drifts evenly. */
async function measureWrites(db: ScaleDb): Promise<Record<string, [Cost, Cost]>> {
  const lot1 = { sub: db.people.lot1!, role: 'authenticated' as const };
  const owner = { sub: db.people.owner!, role: 'authenticated' as const };
  const t = await readTargets(db.owner, db.auctionId, db.people.lot1!, db.now);
  const types = await db.owner`select submission_type_id as id from public.location_submission_types
    where location_id = ${t.locationId}`;
  const entries = types.map((x, i) => ({ submission_type_id: x.id, car_count: i + 2 }));
  const [inspection] = await db.owner`select id from public.quality_inspections where auction_id = ${db.auctionId}
    order by submitted_at desc limit 1`;
  const [category] = await db.owner`select id from public.defect_categories where auction_id is null limit 1`;
  const writes: Record<string, [Caller, (tx: postgres.TransactionSql) => Promise<unknown>]> = {
    create_lot_submission_with_entries: [
      lot1,
      (tx) => tx`select public.create_lot_submission_with_entries(${t.locationId}, ${tx.json(entries)})`,
    ],
    'message insert': [
      lot1,
      (tx) => tx`insert into public.messages (channel_id, content) values (${t.channelId}, 'bench message')`,
    ],
    'defect insert': [
      owner,
      (tx) => tx`insert into public.quality_defects (inspection_id, category_id) values (${inspection!.id},
        ${category!.id})`,
    ],
  };
  const times: Record<string, { with: Cost[]; without: Cost[] }> = {};
  for (const name of Object.keys(writes)) times[name] = { with: [], without: [] };
  const ROUNDS = 4;
  for (let round = 0; round < ROUNDS; round++) {
    for (const enabled of [true, false]) {
      for (const [table, trigger] of ROLLUP_TRIGGERS) {
        await db.owner.unsafe(`alter table ${table} ${enabled ? 'enable' : 'disable'} trigger ${trigger}`);
      }
      for (const [name, [caller, run]] of Object.entries(writes)) {
        for (let i = 0; i < WRITES / ROUNDS; i++) {
          times[name]![enabled ? 'with' : 'without'].push(await timed(db.request, caller, run));
        }
      }
    }
  }
  for (const [table, trigger] of ROLLUP_TRIGGERS)
    await db.owner.unsafe(`alter table ${table} enable trigger ${trigger}`);
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, [p50Cost(v.with), p50Cost(v.without)]]));
}

const ms = (x: number) => x.toFixed(1).padStart(7);
const ratio = (a: number, b: number) => (a / b).toFixed(2).padStart(6);

export async function main(): Promise<void> {
  const dir = KEEP_DIR ?? mkdtempSync(join(tmpdir(), 'auction-ops-bench-data-'));
  const cluster = await startEmbeddedPostgres({ dir, settings: { fsync: 'off', synchronous_commit: 'off' } });
  const password = randomBytes(12).toString('hex');
  const dbs: ScaleDb[] = [];
  try {
    await ensureRoles(cluster.url, password);
    console.log(`load average at start: ${load()}`);
    for (const scale of SCALES) dbs.push(await seedScale(cluster.url, password, scale));
    const results: Record<string, Measured>[] = [];
    for (const db of dbs) results.push(await measureReads(db));
    const [lo, hi] = [SCALES[0]!, SCALES[SCALES.length - 1]!];
    const [a, b] = [results[0]!, results[results.length - 1]!];
    console.log(`\nreads, p50 of ${RUNS} in ms (team member unless named); load average ${load()}`);
    for (const kind of ['wall', 'cpu'] as const) {
      console.log(kind === 'wall' ? 'wall time' : "CPU time of the request's backend (parallel workers not counted)");
      console.log(
        `${'read'.padEnd(42)} ${`@${lo}`.padStart(7)} ${`@${hi}`.padStart(7)} growth  owner@${hi} service@${hi} owner/svc bare@${hi}`,
      );
      for (const name of Object.keys(b)) {
        const x = a[name]!;
        const y = b[name]!;
        console.log(
          `${name.padEnd(42)} ${ms(x.member[kind])} ${ms(y.member[kind])} ${ratio(y.member[kind], x.member[kind])} ${ms(y.owner[kind])}   ${ms(y.service[kind])}  ${ratio(y.owner[kind], y.service[kind])}  ${ms(y.bare[kind])}`,
        );
      }
    }
    if (WRITES === 0) return;
    const writes = await measureWrites(dbs[dbs.length - 1]!);
    console.log(`\nwrites at scale ${hi}, p50 of ${WRITES} in ms; load average ${load()}`);
    console.log(
      `${'write'.padEnd(42)} ${'rollups'.padStart(7)} ${'none'.padStart(7)}  ratio ${'cpu'.padStart(7)} ${'none'.padStart(7)}  ratio`,
    );
    for (const [name, [withRollups, without]] of Object.entries(writes)) {
      console.log(
        `${name.padEnd(42)} ${ms(withRollups.wall)} ${ms(without.wall)} ${ratio(withRollups.wall, without.wall)} ${ms(withRollups.cpu)} ${ms(without.cpu)} ${ratio(withRollups.cpu, without.cpu)}`,
      );
    }
  } finally {
    for (const db of dbs) await Promise.all([db.owner.end(), db.request.end()]);
    await cluster.stop();
    if (!KEEP_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
