// Realtime fan-out benchmark: 1,000 WebSocket subscribers (a child process) across 10 auctions of 100 members,
// 200 inserts per second into public.messages, each change delivered only to the members whose row-level security
// lets them see it. Prints commit-to-client latency (p50, p99) and deliveries per second, against a baseline in
// the same run: the same fan-out (a filter on auction_id) on a table without row-level security, where no policy
// check runs. Run with `pnpm bench realtime`. Nothing here asserts timings.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createTokenSigner } from '../packages/auth-core/src/index.js';
import { BENCH_JWT_SECRET, percentile, startBenchServer } from './support/bench-server.js';

const AUCTIONS = 10;
const MEMBERS = 100;
const RATE = 200;
const SECONDS = 10;

interface Subscriber {
  token: string;
  table: string;
  filter?: string;
}

interface Report {
  latencies: number[];
  first: number;
  last: number;
}

/** The child: opens the subscribers, reports when all are joined, then the latency of each change received. */
async function runChild(): Promise<void> {
  let report: Report = { latencies: [], first: 0, last: 0 };
  process.on('message', async (m: { kind: string; url?: string; apikey?: string; subscribers?: Subscriber[] }) => {
    if (m.kind === 'open') {
      const sockets = await Promise.all(m.subscribers!.map((s, i) => open(m.url!, m.apikey!, s, i)));
      process.send?.({ kind: 'joined' });
      process.once('message', () => {
        for (const ws of sockets) ws.close();
      });
    } else if (m.kind === 'count') {
      process.send?.({ kind: 'count', count: report.latencies.length });
    } else if (m.kind === 'report') {
      process.send?.({ kind: 'report', ...report });
      report = { latencies: [], first: 0, last: 0 };
    } else if (m.kind === 'exit') process.exit(0);
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
          report.first ||= now;
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

function ask<T>(child: ChildProcess, message: object, kind: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { kind: string }) => {
      if (m.kind !== kind) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send(message);
  });
}

const COMMIT_TIMESTAMP = /"commit_timestamp":"([^"]+)"/;

export async function main(): Promise<void> {
  const bench = await startBenchServer('realtime', {
    RATE_LIMITS_ENABLED: 'false',
    WORKERS_ENABLED: 'false',
    REALTIME_MAX_CONNECTIONS_PER_IP: '5000',
  });
  const { server } = bench;
  const sql = server.ctx.ownerSql;
  const signer = await createTokenSigner({ secret: BENCH_JWT_SECRET });
  try {
    // The baseline table: the same shape of change, no row-level security.
    await sql.unsafe(`
      create table public.bench_open (id uuid primary key default gen_random_uuid(), auction_id uuid not null,
        content text not null, created_at timestamptz not null default now());
      alter table public.bench_open replica identity full;
      grant select on public.bench_open to authenticated;
      alter publication auction_ops_realtime add table public.bench_open;`);
    const auctions: { id: string; channel: string; owner: string; tokens: string[] }[] = [];
    for (let a = 0; a < AUCTIONS; a++) {
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
      auctions.push({ id: auction!.id, channel: channel!.id, owner: users[0]!.id, tokens });
    }
    await sql`analyze`;
    console.log(`realtime: ${AUCTIONS * MEMBERS} subscribers, ${RATE} inserts/s for ${SECONDS} s`);
    const results: Record<string, { p50: number; p99: number; rate: number; deliveries: number; expected: number }> =
      {};
    for (const run of ['baseline (no RLS)', 'messages (RLS)'] as const) {
      const rls = run === 'messages (RLS)';
      const subscribers: Subscriber[] = auctions.flatMap((a) =>
        a.tokens.map((token) =>
          rls ? { token, table: 'messages' } : { token, table: 'bench_open', filter: `auction_id=eq.${a.id}` },
        ),
      );
      const child = fork(fileURLToPath(import.meta.url), ['--subscribers-child'], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      await ask(child, { kind: 'open', url: server.url, apikey: server.ctx.anonKey, subscribers }, 'joined');
      const started = Date.now();
      const inserts: Promise<unknown>[] = [];
      for (let i = 0; i < RATE * SECONDS; i++) {
        const a = auctions[i % AUCTIONS]!;
        const due = started + (i * 1000) / RATE;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        inserts.push(
          rls
            ? sql`insert into public.messages (auction_id, channel_id, user_id, content)
                  values (${a.id}, ${a.channel}, ${a.owner}, ${String(i)})`.execute()
            : sql`insert into public.bench_open (auction_id, content) values (${a.id}, ${String(i)})`.execute(),
        );
      }
      const committed = (await Promise.allSettled(inserts)).filter((r) => r.status === 'fulfilled').length;
      // Until nothing more arrives (late deliveries count; lost ones show as missing).
      for (let last = -1, now = 0; now !== last; ) {
        last = now;
        await new Promise((r) => setTimeout(r, 1000));
        now = (await ask<{ count: number }>(child, { kind: 'count' }, 'count')).count;
      }
      const report = await ask<Report>(child, { kind: 'report' }, 'report');
      child.send({ kind: 'exit' });
      const sorted = report.latencies.sort((x, y) => x - y);
      const seconds = Math.max((report.last - started) / 1000, 0.001);
      results[run] = {
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        deliveries: sorted.length,
        expected: committed * MEMBERS,
        rate: sorted.length / seconds,
      };
      const r = results[run];
      console.log(
        `  ${run.padEnd(18)} deliveries ${String(r.deliveries).padStart(7)} of ${r.expected} expected` +
          `  ${r.rate.toFixed(0).padStart(6)}/s  latency p50 ${r.p50} ms  p99 ${r.p99} ms`,
      );
    }
    const base = results['baseline (no RLS)']!;
    const rls = results['messages (RLS)']!;
    console.log(`  RLS / baseline deliveries per second: ${(rls.rate / base.rate).toFixed(2)} (target >= 0.5)`);
    console.log(`  RLS p99 ${rls.p99} ms (target < 100 ms)`);
  } finally {
    await bench.stop();
  }
}

if (process.argv.includes('--subscribers-child')) void runChild();
