// The plans of the contract's reads on seeded, analyzed data: every read has an index for its filters and order,
// so none scans a whole large tenant table. Each read
// runs as a team member and as the owner, in the shape the REST engine gives it (a view with the clients' filters,
// order and limit; count=exact as a count over the same view; the RPCs), with auto_explain sending the plan of
// every statement, those inside the RPCs included, back as a notice.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, seedDemo, type SeedResult } from '../src/index.js';
import { contractReads, readTargets, type ContractRead } from '../bench/contract-reads.js';

let db: TestDatabase;
let seeded: SeedResult;
let plans: string[] = [];
let sql: postgres.Sql;
const NOW = new Date('2030-03-01T18:00:00Z');
const ids: Record<string, string> = {};
/** Tables the planner may rightly read whole: a few rows each (auctions, locations, channels, types, ...). */
const LARGE = 2000;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  seeded = await seedDemo(db.sql, { scale: 3, days: 30, now: NOW, hashPassword: async (p) => `plain:${p}` });
  for (const key of ['owner', 'lot1']) {
    const [u] =
      await db.sql`select id from auth.users where email = ${`${key}@${seeded.auctions[0]!.slug}.example.com`}`;
    ids[key] = u!.id as string;
  }
  READS = contractReads(await readTargets(db.sql, seeded.auctions[0]!.id, ids.lot1!, NOW));
  sql = postgres(db.ownerUrl, { max: 1, onnotice: (n) => plans.push(String(n.message)) });
  await sql`load 'auto_explain'`;
  await sql`set auto_explain.log_min_duration = 0`;
  await sql`set auto_explain.log_nested_statements = on`;
  await sql`set auto_explain.log_level = notice`;
  await sql`set auto_explain.log_format = json`;
  // A sequential scan then remains only where no index serves the read: the demo's one big auction is most of
  // each table, where a scan is the right plan, but a server holds many auctions.
  await sql`set enable_seqscan = off`;
}, 120_000);
afterAll(async () => {
  await sql?.end();
  await db.drop();
});

/** The plans of one read, run as the user the way a request runs (role and claims set for the transaction). */
async function plansOf(user: string, read: (tx: postgres.TransactionSql) => Promise<unknown>): Promise<string[]> {
  plans = [];
  await sql.begin(async (tx) => {
    await tx`select set_config('role', 'authenticated', true),
      set_config('request.jwt.claims', ${JSON.stringify({ sub: user, role: 'authenticated' })}, true)`;
    plans = [];
    await read(tx);
  });
  return plans;
}

let READS: Record<string, ContractRead> = {};

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** Whole-table reads of the large tables in a plan: sequential scans, and index scans without a condition. */
function wholeTableReads(plan: PlanNode, large: Set<string>, indexTable: Map<string, string>): string[] {
  const table = plan['Relation Name'] ?? indexTable.get(plan['Index Name'] ?? '');
  const here =
    table && large.has(table) && (plan['Node Type'] === 'Seq Scan' || (plan['Index Name'] && !plan['Index Cond']))
      ? [`${plan['Node Type']} on ${table}`]
      : [];
  return [...here, ...(plan.Plans ?? []).flatMap((p) => wholeTableReads(p, large, indexTable))];
}

it('no contract read reads a whole large tenant table, as a team member or as the owner', async () => {
  const large = new Set(
    (
      await db.sql`select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attname = 'auction_id'
        where n.nspname in ('public', 'analytics') and c.relkind = 'r' and c.reltuples > ${LARGE}`
    ).map((r) => r.relname as string),
  );
  expect([...large]).toEqual(expect.arrayContaining(['lot_submissions', 'lot_submission_entries', 'quality_defects']));
  const indexTable = new Map(
    (await db.sql`select indexrelid::regclass::text as i, indrelid::regclass::text as t from pg_index`).map((r) => [
      String(r.i).replace(/^\w+\./, ''),
      String(r.t).replace(/^\w+\./, ''),
    ]),
  );
  const found: string[] = [];
  const debug: string[] = [];
  for (const user of [ids.lot1!, ids.owner!]) {
    for (const [name, read] of Object.entries(READS)) {
      const notices = await plansOf(user, (tx) => tx.unsafe(read.sql, read.params));
      expect(notices.length, name).toBeGreaterThan(0);
      for (const notice of notices) {
        const { Plan } = JSON.parse(notice.slice(notice.indexOf('{'))) as { Plan: PlanNode };
        const scans = wholeTableReads(Plan, large, indexTable);
        for (const scan of scans) found.push(`${name}: ${scan}`);
        if (scans.length) debug.push(notice);
      }
    }
  }
  if (found.length && process.env.PLANS_DEBUG) console.log(debug.join('\n=====\n'));
  expect([...new Set(found)]).toEqual([]);
}, 120_000);

it('the check sees a whole-table read when there is one', async () => {
  // Entries: their read policy has an EXISTS arm, which no index serves (lot_submissions' policy, all arrays and
  // equalities, becomes a bitmap of index ranges for the tenant, so it no longer gives a whole-table read).
  const notices = await plansOf(
    ids.owner!,
    (tx) => tx`select count(*) from public.lot_submission_entries where car_count < 0`,
  );
  const reads = notices.flatMap((n) =>
    wholeTableReads(JSON.parse(n.slice(n.indexOf('{'))).Plan, new Set(['lot_submission_entries']), new Map()),
  );
  expect(reads).toEqual(['Seq Scan on lot_submission_entries']);
});

/** Every node type of a plan. */
const nodeTypes = (plan: PlanNode): string[] => [plan['Node Type'], ...(plan.Plans ?? []).flatMap(nodeTypes)];

it("a member's count=exact may run in parallel as the service role's does: the policies' helpers are parallel safe", async () => {
  // Parallel plans made cheap, as they are on a large table; one parallel-unsafe function anywhere in the
  // statement (a policy of the view's joined tables too) keeps it serial.
  await sql`set parallel_setup_cost = 0`;
  await sql`set parallel_tuple_cost = 0`;
  await sql`set min_parallel_table_scan_size = 0`;
  await sql`set min_parallel_index_scan_size = 0`;
  try {
    // Every function the read policies call is declared parallel safe (PostgreSQL's own already are).
    const unsafe = await sql<{ name: string }[]>`
      select p.oid::regprocedure::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('public', 'auth') and p.proparallel <> 's'
        and exists (select from pg_policies pol where pol.schemaname = 'public'
          and pol.cmd in ('SELECT', 'ALL') and strpos(coalesce(pol.qual, ''), p.proname || '(') > 0)`;
    expect(unsafe.map((r) => r.name)).toEqual([]);
    // PostgreSQL 15 plans this view's count without a parallel branch for anyone (the service role included).
    const [{ version }] = await sql<
      { version: number }[]
    >`select current_setting('server_version_num')::int as version`;
    if (version < 160000) return;
    for (const user of [ids.lot1!, ids.owner!]) {
      const notices = await plansOf(user, (tx) =>
        tx.unsafe(READS['recent_submissions count=exact']!.sql, READS['recent_submissions count=exact']!.params),
      );
      const types = notices.flatMap((n) => nodeTypes(JSON.parse(n.slice(n.indexOf('{'))).Plan as PlanNode));
      expect(types).toContain('Gather');
    }
  } finally {
    await sql`reset parallel_setup_cost`;
    await sql`reset parallel_tuple_cost`;
    await sql`reset min_parallel_table_scan_size`;
    await sql`reset min_parallel_index_scan_size`;
  }
});

it('the read policies run their helpers once per statement (InitPlans), not per process and row (hashed SubPlans)', async () => {
  // `x in (select helper())` is a hashed subplan: every process of a parallel plan runs the helper again (a worker
  // with cold caches: milliseconds) and probes its hash per row. `x = any (array(select helper()))` is an InitPlan:
  // the leader runs it once and hands the array to the workers.
  const perRow = await db.sql<{ policy: string }[]>`
    select schemaname || '.' || tablename || ' ' || policyname as policy from pg_policies
    where schemaname in ('public', 'analytics') and cmd in ('SELECT', 'ALL')
      and strpos(upper(qual), ' IN ( SELECT ') > 0
    order by 1`;
  expect(perRow.map((r) => r.policy)).toEqual([]);
  const count = READS['recent_submissions count=exact']!;
  for (const user of [ids.lot1!, ids.owner!]) {
    const main = (await plansOf(user, (tx) => tx.unsafe(count.sql, count.params))).at(-1);
    expect(main).toContain('InitPlan');
    expect(main).not.toMatch(/hashed SubPlan/i);
  }
});

interface AnalyzedNode extends PlanNode {
  'Actual Loops'?: number;
  Plans?: AnalyzedNode[];
}

/** How many times each scan of `table` ran in an analyzed plan. */
const loopsOn = (plan: AnalyzedNode, table: string): number[] => [
  ...(plan['Relation Name'] === table ? [plan['Actual Loops'] ?? 0] : []),
  ...(plan.Plans ?? []).flatMap((p) => loopsOn(p, table)),
];

it("a page of recent_submissions ordered by time without a filter builds only its own rows' entries", async () => {
  // No index orders the caller's submissions by time across the policies' arms, so they are sorted. The entries (a
  // sorted jsonb aggregate under the entries' and types' policies) must be built after the sort and the limit, for
  // the 25 rows of the page, not for every submission the caller can see (domain/0040).
  for (const user of [ids.lot1!, ids.owner!]) {
    await sql.begin(async (tx) => {
      await tx`select set_config('role', 'authenticated', true),
        set_config('request.jwt.claims', ${JSON.stringify({ sub: user, role: 'authenticated' })}, true)`;
      const [{ n }] = await tx<{ n: number }[]>`select count(*)::int as n from public.recent_submissions`;
      expect(n).toBeGreaterThan(100);
      const [row] = await tx.unsafe(
        'explain (analyze, format json) select * from public.recent_submissions order by submitted_at desc limit 25',
      );
      const plan = row!['QUERY PLAN'] as [{ Plan: AnalyzedNode }] | string;
      const { Plan } = (typeof plan === 'string' ? JSON.parse(plan) : plan)[0];
      const loops = loopsOn(Plan, 'lot_submission_entries');
      expect(loops.length).toBeGreaterThan(0);
      expect(Math.max(...loops)).toBeLessThanOrEqual(25);
    });
  }
});
