// Reporting functions benchmark. import-csv: a generated 50 MB CSV uploaded as multipart by a child process to the
// server in a process of its own (as `pnpm start` runs it, one process), rows/s, the server process's peak RSS (VmHWM)
// and where the CPU went (its main thread, its other threads, Postgres), against a postgres.js COPY of the same file
// into a table of the same types from this process in the same run; and the p99 of a REST read (the dashboard polling its datasets) from another child
// process during the import, against the same reads without one. execute-query: per-request time uncached (a new
// statement each time), cached in the answering process, and cached by another server process on the same
// database (the shared tier). Every figure is printed with the load average at its end.
// Run with `pnpm bench functions` (`--import-only` for the import part). Nothing here asserts timings.
import { fork } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { RunningServer } from '../apps/server/src/index.js';
import { builtServer, percentile } from './support/bench-server.js';
import { sized } from './support/bench-smoke.js';
import { loadPostgres } from './support/postgres-client.js';
import {
  backendCpu,
  cpuDelta,
  processCpu,
  residentSet,
  type ServerProcess,
  startServerProcess,
  threadCpu,
} from './support/server-process.js';

type Sql = RunningServer['ctx']['ownerSql'];
const connect = async (url: string): Promise<Sql> => (await loadPostgres<Sql>())(url, { max: 2, onnotice: () => {} });

// A 1 MB file and 10 queries in the smoke run (`pnpm bench:smoke`).
const TARGET_BYTES = sized(50, 1) * 1024 * 1024;
const QUERIES = sized(200, 10);

interface ChildRequest {
  kind: 'import' | 'queries' | 'reads' | 'stop';
  url: string;
  apikey: string;
  token: string;
  file?: string;
  auctionId?: string;
  datasetId?: string;
  /** A second server on the same database (execute-query's shared cache tier). */
  otherUrl?: string;
}

/** The load average over the last minute, for the line of each figure. */
const load = () => `load ${loadavg()[0].toFixed(1)}`;

/** REST reads one after another until told to stop: the latencies, sorted. */
async function readUntilStopped(m: ChildRequest, stopped: Promise<void>): Promise<number[]> {
  let running = true;
  void stopped.then(() => {
    running = false;
  });
  const headers = { apikey: m.apikey, authorization: `Bearer ${m.token}` };
  const url = `${m.url}/rest/v1/datasets?select=id,name,status,row_count&auction_id=eq.${m.auctionId}`;
  const latencies: number[] = [];
  while (running) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the REST read answered ${res.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

/** The client, in its own process: streams the upload and reads the events, times queries, or reads REST. */
async function runChild(): Promise<void> {
  let stop: () => void = () => {};
  process.send?.({ ready: true });
  process.on('message', async (m: ChildRequest) => {
    const headers = { apikey: m.apikey, authorization: `Bearer ${m.token}` };
    if (m.kind === 'stop') stop();
    else if (m.kind === 'reads') {
      const latencies = await readUntilStopped(
        m,
        new Promise<void>((resolve) => {
          stop = resolve;
        }),
      );
      process.send?.({ count: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
    } else if (m.kind === 'import') {
      const form = new FormData();
      form.append('options', JSON.stringify({ auction_id: m.auctionId, name: 'bench', batch_size: 5000 }));
      form.append('file', await (await import('node:fs')).openAsBlob(m.file as string), 'bench.csv');
      const started = performance.now();
      const res = await fetch(`${m.url}/functions/v1/import-csv`, { method: 'POST', headers, body: form });
      // Read as it comes, to time the phases: up to the schema (worker start, sample), the rows, the publish.
      let text = '';
      let schemaMs = 0;
      let lastProgressMs = 0;
      const decoder = new TextDecoder();
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        const part = decoder.decode(chunk, { stream: true });
        text += part;
        if (!schemaMs && text.includes('event: schema')) schemaMs = performance.now() - started;
        if (part.includes('event: progress')) lastProgressMs = performance.now() - started;
      }
      const complete = text.split('\n\n').find((b) => b.includes('event: complete'));
      const data = complete ? JSON.parse(complete.split('data: ')[1]) : { error: text.slice(-500) };
      process.send?.({ ms: performance.now() - started, schemaMs, lastProgressMs, data });
    } else {
      const run = async (url: string, sql: string) => {
        const res = await fetch(`${url}/functions/v1/execute-query`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ dataset_id: m.datasetId, sql }),
        });
        if (res.status !== 200) throw new Error(`execute-query answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        return res.headers.get('x-cache');
      };
      const time = async (sql: (i: number) => string) => {
        const started = performance.now();
        for (let i = 0; i < QUERIES; i++) await run(m.url, sql(i));
        return (performance.now() - started) / QUERIES;
      };
      const uncached = await time(
        (i) => `select make, count(*), avg(price) from dataset where lot > ${i} group by make`,
      );
      const cached = await time(() => 'select make, count(*), avg(price) from dataset where lot > 0 group by make');
      // Each statement computed by the first server, then asked of the second: a hit from the shared tier only.
      let sharedMs = 0;
      for (let i = 0; i < QUERIES; i++) {
        const sql = `select make, count(*), avg(price) from dataset where lot > ${-1 - i} group by make`;
        await run(m.url, sql);
        const started = performance.now();
        if ((await run(m.otherUrl as string, sql)) !== 'HIT') throw new Error('the second server missed the cache');
        sharedMs += performance.now() - started;
      }
      process.send?.({ uncached, cached, shared: sharedMs / QUERIES });
    }
  });
}

async function writeCsv(path: string): Promise<number> {
  const makes = ['Ford', 'Toyota', '"Chevy, Inc"', 'Kia', 'Honda'];
  let rows = 0;
  let bytes = 0;
  async function* lines() {
    yield 'lot,price,sold,make,sale_date,registered_at,miles,notes\n';
    while (bytes < TARGET_BYTES) {
      rows++;
      const line =
        `${rows},${(rows % 90_000) + 0.5},${rows % 2 ? 'true' : 'false'},${makes[rows % 5]},` +
        `2024-${String((rows % 12) + 1).padStart(2, '0')}-${String((rows % 28) + 1).padStart(2, '0')},` +
        `2024-03-01T10:${String(rows % 60).padStart(2, '0')}:00Z,${rows * 7},lot number ${rows} in row ${rows % 40}\n`;
      bytes += line.length;
      yield line;
    }
  }
  await pipeline(lines(), createWriteStream(path));
  return rows;
}

export async function main(): Promise<void> {
  // `pnpm bench functions --import-only`: the import and the reads during it, without execute-query.
  const importOnly = process.argv.includes('--import-only');
  const dir = mkdtempSync(join(tmpdir(), 'auction-ops-bench-functions-'));
  chmodSync(dir, 0o755); // the embedded cluster runs as its own user under DATA_DIR inside it
  const file = join(dir, 'bench.csv');
  const rows = await writeCsv(file);
  const size = statSync(file).size;
  const settings = {
    JWT_SECRET: 'bench-secret-'.padEnd(40, 'x'),
    RATE_LIMITS_ENABLED: 'false',
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    PENDING_CHECK_ENABLED: 'false',
    IMPORT_MAX_BYTES: String(size + 1024),
    FUNCTION_RATE_LIMITS: `execute-query=${QUERIES * 8}/minute`,
  };
  let server: ServerProcess | undefined;
  let sql: Sql | undefined;
  // The second server (execute-query's shared tier) starts after the import, in this process.
  let other: RunningServer | undefined;
  const spawnChild = () =>
    fork(fileURLToPath(import.meta.url), ['--bench-functions-child'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  const client = spawnChild();
  const reader = spawnChild();
  const ask = <T>(child: ReturnType<typeof fork>, m: ChildRequest) =>
    new Promise<T>((resolve) => {
      child.once('message', (r) => resolve(r as T));
      child.send(m);
    });
  type Reads = { count: number; p50: number; p99: number };
  try {
    // One process, as a single-core deployment runs it: the import and the reads meet in the same server.
    server = await startServerProcess({ ...settings, DATA_DIR: join(dir, 'data'), WEB_CONCURRENCY: '1' });
    sql = await connect(server.ownerUrl);
    // Both ready (their modules loaded) before anything is timed.
    await Promise.all([client, reader].map((child) => new Promise((resolve) => child.once('message', resolve))));
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@functions.test', password: 'bench-password-123' }),
    });
    const session = (await signup.json()) as { access_token: string; user: { id: string } };
    const user = session.user;
    const token = session.access_token;
    const [auction] = await sql`insert into public.auctions (name, slug) values ('Bench', 'bench-fn') returning id`;
    await sql`insert into public.auction_members (auction_id, user_id, role)
      values (${auction.id}, ${user.id}, 'owner')`;
    const base = { url: server.url, apikey: server.anonKey, token, auctionId: auction.id };

    // Baseline: the same file straight into a table of the same types with COPY, from this process.
    await sql`create table public.bench_copy (lot bigint, price numeric, sold boolean, make text, sale_date date,
      registered_at timestamptz, miles bigint, notes text)`;
    const copyPostgres = backendCpu(server.postmasterPid);
    const started = performance.now();
    const copy = await sql`copy public.bench_copy from stdin with (format csv, header)`.writable();
    await pipeline(createReadStream(file), copy);
    const copyMs = performance.now() - started;
    const copyPostgresSeconds = sum(cpuDelta(copyPostgres, backendCpu(server.postmasterPid)));
    const copyLoad = load();

    // Baseline of the reads: the same client for as long as an import takes, without one.
    const idleReads = ask<Reads>(reader, { ...base, kind: 'reads' });
    await new Promise((resolve) => setTimeout(resolve, Math.max(sized(5000, 500), copyMs)));
    reader.send({ kind: 'stop' });
    const idle = await idleReads;
    const idleLoad = load();

    const { pid, postmasterPid } = server;
    const before = residentSet(pid);
    const threadsBefore = threadCpu(pid);
    const processBefore = processCpu(pid);
    const postgresBefore = backendCpu(postmasterPid);
    // Threads end with the import (its parse worker): their last reading is kept.
    const threadsSeen = new Map(threadsBefore);
    const sampler = setInterval(() => {
      for (const [tid, seconds] of threadCpu(pid)) threadsSeen.set(tid, seconds);
    }, 100);
    const busyReads = ask<Reads>(reader, { ...base, kind: 'reads' });
    const imported = await ask<{
      ms: number;
      schemaMs: number;
      lastProgressMs: number;
      data: { row_count?: number; dataset_id?: string; error?: string };
    }>(client, { ...base, kind: 'import', file });
    clearInterval(sampler);
    const threads = cpuDelta(threadsBefore, threadsSeen);
    const processSeconds = processCpu(pid) - processBefore;
    const postgresSeconds = sum(cpuDelta(postgresBefore, backendCpu(postmasterPid)));
    const rss = residentSet(pid);
    reader.send({ kind: 'stop' });
    const busy = await busyReads;
    const importLoad = load();
    if (!imported.data.row_count) throw new Error(`import failed: ${JSON.stringify(imported.data)}`);
    const importMs = imported.ms;
    const copyRate = rows / (copyMs / 1000);
    const importRate = imported.data.row_count / (importMs / 1000);
    const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
    console.log(`import-csv: ${(size / 1024 / 1024).toFixed(1)} MB, ${rows} rows x 8 columns`);
    console.log(
      `  postgres.js COPY (baseline)   ${(copyMs / 1000).toFixed(2)} s  ${Math.round(copyRate)} rows/s  ` +
        `Postgres CPU ${copyPostgresSeconds.toFixed(2)} s  ${copyLoad}`,
    );
    console.log(
      `  import-csv over HTTP + SSE    ${(importMs / 1000).toFixed(2)} s  ${Math.round(importRate)} rows/s  ` +
        `Postgres CPU ${postgresSeconds.toFixed(2)} s  ${importLoad}`,
    );
    console.log(`  import/COPY = ${(importRate / copyRate).toFixed(2)} (target >= 0.5)  ${importLoad}`);
    console.log(
      `  phases: to the schema event ${imported.schemaMs.toFixed(0)} ms, rows until the last progress event ` +
        `${(imported.lastProgressMs - imported.schemaMs).toFixed(0)} ms, then to complete ` +
        `${(importMs - imported.lastProgressMs).toFixed(0)} ms`,
    );
    const main = threads.get(pid) ?? 0;
    const [busiest] = [...threads].filter(([tid]) => tid !== pid).sort((a, b) => b[1] - a[1]);
    console.log(
      `  server CPU for the import: ${processSeconds.toFixed(2)} s, ` +
        `${((processSeconds / imported.data.row_count) * 1e9).toFixed(0)} ns/row; main thread ${main.toFixed(2)} s, ` +
        `busiest other thread (the parse worker) ${(busiest?.[1] ?? 0).toFixed(2)} s, ` +
        `the rest ${(processSeconds - main - (busiest?.[1] ?? 0)).toFixed(2)} s`,
    );
    console.log(
      `  server RSS (its own process): ${mb(before.now)} before (its peak so far ${mb(before.peak)}), ` +
        `peak ${mb(rss.peak)} (VmHWM) (target < 300 MB), the import's share +${mb(rss.peak - before.now)}  ` +
        importLoad,
    );
    const reads = (r: Reads) => `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (n=${r.count})`;
    console.log(`  REST read (GET /rest/v1/datasets, another process), one client:`);
    console.log(`    without an import (baseline)  ${reads(idle)}  ${idleLoad}`);
    console.log(`    during the import             ${reads(busy)}  ${importLoad}`);
    console.log(`    p99 during/without = ${(busy.p99 / idle.p99).toFixed(2)}`);

    if (importOnly) return;
    const { startServer, loadConfig } = await builtServer();
    other = await startServer(
      loadConfig({
        ...settings,
        PORT: '0',
        LOG_LEVEL: 'warn',
        DATA_DIR: join(dir, 'other'),
        DATABASE_URL: server.ownerUrl,
      }),
    );
    const q = await ask<{ uncached: number; cached: number; shared: number }>(client, {
      ...base,
      kind: 'queries',
      datasetId: imported.data.dataset_id,
      otherUrl: other.url,
    });
    console.log(`execute-query over ${rows} rows, ${QUERIES} requests each, one client:  ${load()}`);
    console.log(`  uncached (baseline) ${q.uncached.toFixed(2)} ms/request`);
    console.log(`  cached in the answering process ${q.cached.toFixed(2)} ms/request`);
    console.log(`  cached by another server, hit from the shared tier ${q.shared.toFixed(2)} ms/request`);
    console.log(
      `  cached/uncached = ${(q.cached / q.uncached).toFixed(3)}, shared/uncached = ${(q.shared / q.uncached).toFixed(3)}`,
    );
  } finally {
    client.kill();
    reader.kill();
    await other?.close();
    await sql?.end();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sum = (seconds: Map<number, number>) => [...seconds.values()].reduce((a, b) => a + b, 0);

if (process.argv.includes('--bench-functions-child')) void runChild();
