// Chat fan-out benchmark: a real server (embedded Postgres, migrations, the in-server push job worker) notifies a
// channel of 2,000 members with 2 tokens each through a fake Expo server running in a child process. Prints the
// time from the message's commit to the last provider request, provider requests and notifications per second,
// and a baseline: the same provider requests posted straight from this process without a database.
// Run with `pnpm bench notifications`. Nothing here asserts timings.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBenchServer } from './support/bench-server.js';
import { sized } from './support/bench-smoke.js';
import { startFakeExpo } from '../packages/functions/src/push/testing/fake-expo-server.js';

// 200 members and one round in the smoke run (`pnpm bench:smoke`).
const MEMBERS = sized(2000, 200);
const TOKENS_PER_MEMBER = 2;
const ROUNDS = sized(3, 1);

interface Stats {
  requests: number;
  messages: number;
  lastAt: number;
}

/** The child: a fake Expo server that reports its URL and, when asked, its counts and last request time. */
async function runChild(): Promise<void> {
  const expo = await startFakeExpo();
  process.send?.({ url: expo.url });
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'stats') {
      const last = expo.requests[expo.requests.length - 1];
      process.send?.({
        requests: expo.requests.length,
        messages: expo.requests.reduce((n, r) => n + r.messages.length, 0),
        lastAt: last ? last.at : 0,
      } satisfies Stats);
    } else if (m.kind === 'exit') void expo.close().then(() => process.exit(0));
  });
}

function ask(child: ChildProcess): Promise<Stats> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Stats));
    child.send({ kind: 'stats' });
  });
}

export async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--fake-expo-child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as never)));
  const bench = await startBenchServer('notify', {
    EXPO_PUSH_URL: url,
    PENDING_CHECK_ENABLED: 'false',
    WEBHOOK_DISPATCHER_ENABLED: 'false',
  });
  const { server } = bench;
  const sql = server.ctx.ownerSql;
  try {
    const users = await sql`
      insert into auth.users (email, raw_user_meta_data)
      select 'member' || g || '@bench.test', jsonb_build_object('full_name', 'Member ' || g)
        from generate_series(1, ${MEMBERS}) g returning id`;
    const ids = users.map((u) => u.id as string);
    const [a] = await sql`insert into public.auctions (name, slug) values ('Bench', 'bench-notify') returning id`;
    await sql`insert into public.auction_members (auction_id, user_id, role)
      select ${a.id}, u, case when n = 1 then 'owner' else 'team_member' end
        from unnest(${ids}::uuid[]) with ordinality as x(u, n)`;
    await sql`insert into public.user_push_tokens (user_id, token, platform)
      select u, 'ExponentPushToken[' || u || '-' || k || ']', 'ios'
        from unnest(${ids}::uuid[]) u cross join generate_series(1, ${TOKENS_PER_MEMBER}) k`;
    const [channel] =
      await sql`insert into public.channels (auction_id, name) values (${a.id}, 'all-hands') returning id`;
    const expected = (MEMBERS - 1) * TOKENS_PER_MEMBER;
    const requestsPerMessage = Math.ceil(expected / 100);

    const sendOne = async (n: number) => {
      const before = await ask(child);
      const [m] = await sql`insert into public.messages (auction_id, channel_id, user_id, content)
        values (${a.id}, ${channel.id}, ${ids[0]}, ${`Round ${n}: everyone to the north lot, please`}) returning id`;
      const committedAt = performance.timeOrigin + performance.now();
      let now = before;
      while (now.messages - before.messages < expected) {
        await new Promise((r) => setTimeout(r, 5));
        now = await ask(child);
      }
      void m;
      return { ms: now.lastAt - committedAt, requests: now.requests - before.requests };
    };

    await sendOne(0); // warm-up: connections, prepared statements, JIT
    const rounds: Array<{ ms: number; requests: number }> = [];
    for (let i = 1; i <= ROUNDS; i++) rounds.push(await sendOne(i));
    const sorted = rounds.map((r) => r.ms).sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(
      `fan-out to ${MEMBERS} members x ${TOKENS_PER_MEMBER} tokens (${expected} notifications, ` +
        `${requestsPerMessage} provider requests) over ${ROUNDS} rounds:`,
    );
    console.log(
      `  commit to last provider request: median ${median.toFixed(0)} ms, ` +
        `all ${sorted.map((x) => x.toFixed(0)).join(' / ')} ms (target < 2000 ms)`,
    );
    console.log(
      `  provider requests/s ${Math.round(requestsPerMessage / (median / 1000))}, ` +
        `notifications/s ${Math.round(expected / (median / 1000))}`,
    );

    // Baseline: the same provider requests posted straight from here, 4 in flight (the provider's default), no
    // database, no recipient lookup: the most the push path could reach against this fake on this machine.
    const body = JSON.stringify(
      Array.from({ length: 100 }, (_, i) => ({ to: `ExponentPushToken[x${i}]`, title: 't', body: 'b', data: {} })),
    );
    let next = 0;
    const b0 = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < requestsPerMessage)
          await (await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).text();
      }),
    );
    const baselineMs = performance.now() - b0;
    console.log(
      `  baseline, ${requestsPerMessage} plain provider requests without a database: ${baselineMs.toFixed(0)} ms; ` +
        `the fan-out took ${(median / baselineMs).toFixed(1)}x that`,
    );
  } finally {
    await bench.stop();
    child.send({ kind: 'exit' });
  }
}

if (process.argv.includes('--fake-expo-child')) await runChild();
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
