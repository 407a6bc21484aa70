// Realtime fan-out benchmark: WebSocket subscribers (a child process) in auctions of 100 members, 200 inserts per
// second into public.messages (from another child process), each change delivered only to the members whose
// row-level security lets them see it. Prints commit-to-client latency (p50, p99) and deliveries per second against
// a baseline in the same run: the same fan-out (a filter on auction_id) on a table without row-level security, where
// no policy check runs. Runs 1,000 subscribers (10 auctions) and 5,000 (50 auctions), each against the targets (p99
// under 100 ms, at least 0.8 of the baseline's rate) and with the server's memory. Each run's first second of inserts
// is reported apart, as the cold start (fresh connections and first plans after the joins), and the targets are
// judged on the ten seconds after it. Run with `pnpm bench realtime`;
// `pnpm bench realtime --subscribers=5000` (comma-separated multiples of 100; default 1000,5000) picks the sizes.
// Nothing here asserts timings.
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createTokenSigner } from '../packages/auth-core/src/index.js';
import { BENCH_JWT_SECRET, percentile, startBenchServer } from './support/bench-server.js';
import { loadPostgres } from './support/postgres-client.js';
import { sized } from './support/bench-smoke.js';

type Sql = Awaited<ReturnType<typeof startBenchServer>>['server']['ctx']['ownerSql'];

const MEMBERS = 100;
const RATE = 200;
// The smoke run (`pnpm bench:smoke`): 100 subscribers, one second of inserts.
const SECONDS = sized(10, 1);
const SIZES = (
  /^--subscribers=(.+)$/.exec(process.argv.find((a) => a.startsWith('--subscribers=')) ?? '')?.[1] ??
  sized('1000,5000', '100')
)
  .split(',')
  .map(Number);
// Every size is held to both targets; the run of the load alone is made at the first size.
const SCENARIOS = SIZES.map((n, i) => {
  if (!Number.isInteger(n) || n < MEMBERS || n % MEMBERS !== 0)
    throw new Error(`--subscribers takes multiples of ${MEMBERS}, comma-separated (got ${n})`);
  return { auctions: n / MEMBERS, loadAlone: i === 0 };
});
const TARGET_P99_MS = 100;
const TARGET_RATE_RATIO = 0.8;

interface Subscriber {
  token: string;
  table: string;
  filter?: string;
}

interface Report {
  latencies: number[];
  last: number;
}

interface Insert {
  table: 'messages' | 'bench_open';
  auction: string;
  channel: string;
  user: string;
}

/** The subscribers' child: opens them, reports when all are joined, then the latency of each change received. */
async function runSubscribers(): Promise<void> {
  let report: Report = { latencies: [], last: 0 };
  let sockets: WebSocket[] = [];
  process.on('message', async (m: { kind: string; url?: string; apikey?: string; subscribers?: Subscriber[] }) => {
    if (m.kind === 'open') {
      // In waves: thousands of upgrades at once would time out on a loaded machine.
      for (let i = 0; i < m.subscribers!.length; i += 250)
        sockets.push(
          ...(await Promise.all(m.subscribers!.slice(i, i + 250).map((s, n) => open(m.url!, m.apikey!, s, i + n)))),
        );
      // As realtime-js does: a connection silent for 60 s is closed, and opening thousands can take that long.
      const beat = setInterval(() => {
        for (const ws of sockets)
          ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', ref: 'hb', payload: {} }));
      }, 25_000);
      beat.unref();
      process.send?.({ kind: 'joined' });
    } else if (m.kind === 'count') {
      process.send?.({ kind: 'count', count: report.latencies.length });
    } else if (m.kind === 'report') {
      process.send?.({ kind: 'report', ...report });
      report = { latencies: [], last: 0 };
    } else if (m.kind === 'exit') {
      for (const ws of sockets) ws.close();
      sockets = [];
      process.exit(0);
    }
  });

  function open(url: string, apikey: string, s: Subscriber, i: number): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=1.0.0`);
      ws.on('error', reject);
      ws.on('open', () => {
        const binding = {
          event: 'INSERT',
          schema: 'public',
          table: s.table,
          ...(s.filter ? { filter: s.filter } : {}),
        };
        ws.send(
          JSON.stringify({
            topic: `realtime:bench-${i}`,
            event: 'phx_join',
            ref: '1',
            join_ref: '1',
            payload: { config: { postgres_changes: [binding] }, access_token: s.token },
          }),
        );
      });
      ws.on('message', (data) => {
        const text = String(data);
        // Changes are only timed, not parsed: the load generator must not be what limits the rate.
        const stamp = COMMIT_TIMESTAMP.exec(text);
        if (stamp) {
          const now = Date.now();
          report.latencies.push(now - Date.parse(stamp[1]!));
          report.last = now;
          return;
        }
        const msg = JSON.parse(text);
        if (msg.event === 'phx_reply' && msg.ref === '1') {
          if (msg.payload.status === 'ok') resolve(ws);
          else reject(new Error(JSON.stringify(msg.payload)));
        }
      });
    });
  }
}

/** The writer's child: RATE inserts per second for SECONDS, on a pool of its own; reports when it started. */
async function runWriter(): Promise<void> {
  process.once('message', async (m: { url: string; inserts: Insert[] }) => {
    const sql = (await loadPostgres<Sql>())(m.url, { max: 8, onnotice: () => {} });
    const started = Date.now();
    const pending: Promise<unknown>[] = [];
    for (const [i, row] of m.inserts.entries()) {
      const wait = started + (i * 1000) / RATE - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(
        row.table === 'messages'
          ? sql`insert into public.messages (auction_id, channel_id, user_id, content)
                values (${row.auction}, ${row.channel}, ${row.user}, ${String(i)})`.execute()
          : sql`insert into public.bench_open (auction_id, content) values (${row.auction}, ${String(i)})`.execute(),
      );
    }
    const committed = (await Promise.allSettled(pending)).filter((r) => r.status === 'fulfilled').length;
    process.send?.({ kind: 'written', started, committed, seconds: (Date.now() - started) / 1000 });
    await sql.end();
    process.exit(0);
  });
}

function child(mode: string): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [mode], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function ask<T>(to: ChildProcess, message: object, kind: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { kind: string }) => {
      if (m.kind !== kind) return;
      to.off('message', on);
      resolve(m as T);
    };
    to.on('message', on);
    to.send(message);
  });
}

const COMMIT_TIMESTAMP = /"commit_timestamp":"([^"]+)"/;

const load = () => loadavg()[0]!.toFixed(1);

/** CPU time (ms) of a process from /proc: its own, plus that of children it has reaped when `reaped`. */
function procCpuMs(pid: number, reaped = false): { ms: number; ppid: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  const ticks = fields[11]! + fields[12]! + (reaped ? fields[13]! + fields[14]! : 0);
  return { ms: ticks * 10, ppid: fields[1]! };
}

/** CPU time (ms) Postgres has used: the postmaster, its exited children, and its live ones. */
function postgresCpuMs(postmaster: number): number {
  let ms = procCpuMs(postmaster, true).ms;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = procCpuMs(Number(name));
      if (p.ppid === postmaster) ms += p.ms;
    } catch {
      // gone meanwhile
    }
  }
  return ms;
}
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

interface Auction {
  id: string;
  channel: string;
  owner: string;
  tokens: string[];
}

interface Result {
  p50: number;
  p99: number;
  /** p99 of the first second after the joins (not in the other figures). */
  coldP99: number;
  rate: number;
  deliveries: number;
  expected: number;
  rss: number;
  load: string;
  /** CPU of the server process per 1,000 deliveries, and of Postgres per insert (ms). */
  serverCpu: number;
  postgresCpu: number;
}

export async function main(): Promise<void> {
  const bench = await startBenchServer('realtime', {
    RATE_LIMITS_ENABLED: 'false',
    WORKERS_ENABLED: 'false',
    REALTIME_MAX_CONNECTIONS_PER_IP: '20000',
  });
  const { server } = bench;
  const sql = server.ctx.ownerSql;
  const signer = await createTokenSigner({ secret: BENCH_JWT_SECRET });
  const [{ data_directory }] = await sql<{ data_directory: string }[]>`show data_directory`;
  const postmaster = Number(readFileSync(`${data_directory}/postmaster.pid`, 'utf8').split('\n')[0]);
  try {
    // The baseline table: the same shape of change, no row-level security.
    await sql.unsafe(`
      create table public.bench_open (id uuid primary key default gen_random_uuid(), auction_id uuid not null,
        content text not null, created_at timestamptz not null default now());
      alter table public.bench_open replica identity full;
      grant select on public.bench_open to authenticated;
      alter publication auction_ops_realtime add table public.bench_open;`);
    const auctions: Auction[] = [];
    console.log(
      `realtime: ${RATE} inserts/s for ${SECONDS} s from a writer process into auctions of ${MEMBERS} members, ` +
        `subscribers in another process; ${cpus().length} cores, load average ${load()} at start`,
    );
    for (const scenario of SCENARIOS) {
      while (auctions.length < scenario.auctions) auctions.push(await seedAuction(auctions.length));
      await sql`analyze`;
      const used = auctions.slice(0, scenario.auctions);
      console.log(`  ${used.length * MEMBERS} subscribers (${used.length} auctions)`);
      const results: Record<'baseline' | 'rls', Result> = {
        baseline: await measure(used, false),
        rls: await measure(used, true),
      };
      for (const [run, r] of Object.entries(results))
        console.log(
          `    ${(run === 'rls' ? 'messages (RLS)' : 'baseline (no RLS)').padEnd(18)}` +
            ` deliveries ${String(r.deliveries).padStart(7)} of ${r.expected}` +
            `  ${r.rate.toFixed(0).padStart(6)}/s  latency p50 ${r.p50} ms  p99 ${r.p99} ms` +
            `  CPU: server ${r.serverCpu.toFixed(0)} ms per 1,000 deliveries, Postgres ${r.postgresCpu.toFixed(1)} ms` +
            ` per insert  server RSS ${mb(r.rss)}  load ${r.load}` +
            `  (cold start, the first second after the joins: p99 ${r.coldP99} ms)`,
        );
      const { baseline, rls } = results;
      const ratio = rls.rate / baseline.rate;
      if (scenario.loadAlone)
        console.log(
          `    the load alone (the same inserts into messages, nobody subscribed): Postgres` +
            ` ${(await insertCost(used)).toFixed(1)} ms CPU per insert  load ${load()}`,
        );
      const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
      console.log(
        `    target p99 commit-to-client < ${TARGET_P99_MS} ms: ${rls.p99} ms (baseline ${baseline.p99} ms)` +
          `  ${verdict(rls.p99 < TARGET_P99_MS)}  load ${rls.load}`,
      );
      console.log(
        `    target delivery rate >= ${TARGET_RATE_RATIO} of baseline: ${ratio.toFixed(2)}` +
          ` (${rls.rate.toFixed(0)}/s against ${baseline.rate.toFixed(0)}/s)` +
          `  ${verdict(ratio >= TARGET_RATE_RATIO)}  load ${rls.load}`,
      );
    }
  } finally {
    await bench.stop();
  }

  async function seedAuction(a: number): Promise<Auction> {
    const users = await sql<{ id: string }[]>`
      insert into auth.users (email, raw_user_meta_data)
      select 'a' || ${a} || 'm' || g || '@bench.test', jsonb_build_object('full_name', 'Member ' || g)
        from generate_series(1, ${MEMBERS}) g returning id`;
    const [auction] = await sql<{ id: string }[]>`
      insert into public.auctions (name, slug) values (${`Bench ${a}`}, ${`bench-rt-${a}`}) returning id`;
    await sql`insert into public.auction_members (auction_id, user_id, role)
      select ${auction!.id}, u, case when n = 1 then 'owner' when n <= 5 then 'admin' else 'team_member' end
        from unnest(${users.map((u) => u.id)}::uuid[]) with ordinality as x(u, n)`;
    const [channel] = await sql<{ id: string }[]>`
      insert into public.channels (auction_id, name) values (${auction!.id}, 'general') returning id`;
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const tokens = await Promise.all(
      users.map((u) => signer.sign({ sub: u.id, role: 'authenticated', aud: 'authenticated', exp })),
    );
    return { id: auction!.id, channel: channel!.id, owner: users[0]!.id, tokens };
  }

  /** A second's inserts to start with, then SECONDS seconds' worth. */
  function insertsInto(used: Auction[], table: Insert['table']): Insert[] {
    return Array.from({ length: RATE * (SECONDS + 1) }, (_, i) => {
      const a = used[i % used.length]!;
      return { table, auction: a.id, channel: a.channel, user: a.owner };
    });
  }

  function write(inserts: Insert[]): Promise<{ started: number; committed: number }> {
    return ask(child('--writer-child'), { url: server.ctx.ownerUrl, inserts }, 'written');
  }

  /** Postgres CPU per insert into messages with no subscriber: what the load costs before realtime does anything. */
  async function insertCost(used: Auction[]): Promise<number> {
    const before = postgresCpuMs(postmaster);
    const written = await write(insertsInto(used, 'messages').slice(RATE));
    return (postgresCpuMs(postmaster) - before) / Math.max(written.committed, 1);
  }

  /** Until `expected` changes arrived, or nothing more for 15 s (late deliveries count; lost ones show as missing). */
  async function delivered(readers: ChildProcess, expected: number): Promise<void> {
    for (let count = 0, still = 0; count < expected && still < 15; ) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = (await ask<{ count: number }>(readers, { kind: 'count' }, 'count')).count;
      still = now === count ? still + 1 : 0;
      count = now;
    }
  }

  async function measure(used: Auction[], rls: boolean): Promise<Result> {
    const subscribers: Subscriber[] = used.flatMap((a) =>
      a.tokens.map((token) =>
        rls ? { token, table: 'messages' } : { token, table: 'bench_open', filter: `auction_id=eq.${a.id}` },
      ),
    );
    const readers = child('--subscribers-child');
    await ask(readers, { kind: 'open', url: server.url, apikey: server.ctx.anonKey, subscribers }, 'joined');
    // The first second after the joins, apart: what a server that just started (or a wave of joins) pays once
    // (fresh connections, first plans), reported as the cold start and kept out of the steady figures.
    const inserts = insertsInto(used, rls ? 'messages' : 'bench_open');
    const warm = await write(inserts.slice(0, RATE));
    await delivered(readers, warm.committed * MEMBERS);
    const cold = (await ask<Report>(readers, { kind: 'report' }, 'report')).latencies.sort((x, y) => x - y);
    let rss = process.memoryUsage().rss;
    const cpuBefore = { server: process.cpuUsage(), postgres: postgresCpuMs(postmaster) };
    const sampler = setInterval(() => {
      rss = Math.max(rss, process.memoryUsage().rss);
    }, 250);
    const written = await write(inserts.slice(RATE));
    const expected = written.committed * MEMBERS;
    await delivered(readers, expected);
    clearInterval(sampler);
    const serverCpu = process.cpuUsage(cpuBefore.server);
    const postgresMs = postgresCpuMs(postmaster) - cpuBefore.postgres;
    const report = await ask<Report>(readers, { kind: 'report' }, 'report');
    readers.send({ kind: 'exit' });
    await new Promise((r) => readers.once('exit', r));
    const sorted = report.latencies.sort((x, y) => x - y);
    return {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      deliveries: sorted.length,
      expected,
      coldP99: percentile(cold, 99),
      rate: sorted.length / Math.max((report.last - written.started) / 1000, 0.001),
      rss,
      load: load(),
      serverCpu: (serverCpu.user + serverCpu.system) / 1000 / Math.max(sorted.length / 1000, 1),
      postgresCpu: postgresMs / Math.max(written.committed, 1),
    };
  }
}

if (process.argv.includes('--subscribers-child')) void runSubscribers();
if (process.argv.includes('--writer-child')) void runWriter();
