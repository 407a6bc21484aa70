// Webhook delivery benchmark: a real server (embedded Postgres, migrations, the in-server dispatcher with its
// default concurrency) delivering to a receiver on loopback. Prints deliveries per second for a backlog, and the
// latency from an event's commit to the receiver getting its first attempt (p50, p99) at a steady rate.
// Run with `pnpm bench webhooks` or `node --import tsx scripts/bench-webhooks.ts`. Nothing here asserts timings.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { percentile, startBenchServer } from './support/bench-server.js';
import { sized } from './support/bench-smoke.js';

const ENDPOINTS = 4;
// Fewer events in the smoke run (`pnpm bench:smoke`).
const BACKLOG_EVENTS = sized(1500, 200); // x ENDPOINTS deliveries
const LATENCY_EVENTS = sized(400, 50);
const LATENCY_RATE = 100; // events per second, one transaction each

export async function main(): Promise<void> {
  const received = new Map<string, number>();
  let count = 0;
  let onCount: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { seq?: number } };
      if (body.event === 'member.joined' && body.data.seq !== undefined) received.set(String(body.data.seq), at);
      count++;
      res.writeHead(200).end();
      onCount?.();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const bench = await startBenchServer('webhooks', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    ...(process.env.BENCH_PER_ENDPOINT ? { WEBHOOK_PER_ENDPOINT_CONCURRENCY: process.env.BENCH_PER_ENDPOINT } : {}),
  });
  const { server } = bench;
  const sql = server.ctx.ownerSql;
  const waitForCount = (n: number) =>
    new Promise<void>((resolve) => {
      if (count >= n) return resolve();
      onCount = () => {
        if (count >= n) {
          onCount = undefined;
          resolve();
        }
      };
    });
  try {
    const [a] = await sql`insert into public.auctions (name, slug) values ('Bench', 'bench') returning id`;
    for (let i = 0; i < ENDPOINTS; i++) {
      await sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
        values (${a.id}, ${hookUrl}, ${i === 0 ? ['message.created', 'member.joined'] : ['message.created']},
          'bench-secret-0123456789')`;
    }

    // Warm-up: connections, JIT, keep-alive sockets.
    await sql`select domain.emit_event(${a.id}, 'message.created', '{}') from generate_series(1, 50)`;
    await waitForCount(50 * ENDPOINTS);

    // Throughput: a backlog committed in batches of 100 events while the dispatcher drains it.
    const before = count;
    const total = BACKLOG_EVENTS * ENDPOINTS;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < BACKLOG_EVENTS; i += 100) {
      await sql`select domain.emit_event(${a.id}, 'message.created', jsonb_build_object('n', g))
        from generate_series(1, 100) g`;
    }
    await waitForCount(before + total);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `throughput: ${total} deliveries in ${seconds.toFixed(2)} s = ` +
        `${Math.round(total / seconds)} deliveries/s (target >= 500)`,
    );
    console.log(
      '  this process (server, dispatcher and receiver) used ' +
        `${(((cpu.user + cpu.system) / 1e6 / seconds) * 100).toFixed(0)}% of one core meanwhile`,
    );

    // Baseline: the same number of plain POSTs to the same receiver at the dispatcher's in-flight ceiling here
    // (ENDPOINTS x the per-endpoint limit), with no database: the most any sender could reach on this machine.
    const slots = ENDPOINTS * server.ctx.config.WEBHOOK_PER_ENDPOINT_CONCURRENCY;
    const agent = new http.Agent({ keepAlive: true, maxSockets: slots });
    const payload = JSON.stringify({ event: 'message.created', data: {} });
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          hookUrl,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    let next = 0;
    const b0 = performance.now();
    await Promise.all(
      Array.from({ length: slots }, async () => {
        while (next++ < total) await post();
      }),
    );
    const baseline = total / ((performance.now() - b0) / 1000);
    agent.destroy();
    console.log(
      `  baseline, plain POSTs without a database at ${slots} in flight: ${Math.round(baseline)}/s; ` +
        `the dispatcher reached ${((total / seconds / baseline) * 100).toFixed(0)}% of it`,
    );

    // Latency: one event per transaction at a steady rate; commit time is when the insert's commit returned.
    const committed = new Map<string, number>();
    const latencyStart = count;
    const interval = 1000 / LATENCY_RATE;
    const started = performance.now();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await sql`select domain.emit_event(${a.id}, 'member.joined', ${sql.json({ seq: i })})`;
      committed.set(String(i), performance.now());
    }
    await waitForCount(latencyStart + LATENCY_EVENTS);
    const latencies = [...committed].map(([seq, at]) => (received.get(seq) ?? NaN) - at).sort((x, y) => x - y);
    console.log(
      `commit-to-first-attempt latency at ${LATENCY_RATE} events/s: p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
        `max ${latencies[latencies.length - 1].toFixed(1)} ms (target p99 < 250 ms)`,
    );
    // The receiver answers before the outcome is written: give the last completions a moment to land.
    let check = { delivered: 0, total: -1 };
    for (let i = 0; i < 50 && check.delivered !== check.total; i++) {
      [check] = await sql<
        { delivered: number; total: number }[]
      >`select count(*) filter (where status = 'delivered')::int as delivered,
        count(*)::int as total from public.webhook_deliveries`;
      if (check.delivered !== check.total) await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`deliveries recorded delivered: ${check.delivered} of ${check.total}`);
  } finally {
    await bench.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
