// Reporting functions benchmark. import-csv: a generated 50 MB CSV uploaded as multipart by a child process to a
// real server, rows/s and the server's peak RSS, against a postgres.js COPY of the same file into a table of the
// same types in the same run. execute-query: per-request time uncached (a new statement each time), cached in the
// answering process, and cached by another server process on the same database (the shared tier).
// Run with `pnpm bench functions`. Nothing here asserts timings.
import { fork } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig, startServer } from '../apps/server/src/index.js';

const TARGET_BYTES = 50 * 1024 * 1024;
const QUERIES = 200;

interface ChildRequest {
  kind: 'import' | 'queries';
  url: string;
  apikey: string;
  token: string;
  file?: string;
  auctionId?: string;
  datasetId?: string;
  /** A second server on the same database (execute-query's shared cache tier). */
  otherUrl?: string;
}

/** The client, in its own process: streams the upload and reads the events, or times a run of queries. */
async function runChild(): Promise<void> {
  process.on('message', async (m: ChildRequest) => {
    const headers = { apikey: m.apikey, authorization: `Bearer ${m.token}` };
    if (m.kind === 'import') {
      const form = new FormData();
      form.append('options', JSON.stringify({ auction_id: m.auctionId, name: 'bench', batch_size: 5000 }));
      form.append('file', await (await import('node:fs')).openAsBlob(m.file as string), 'bench.csv');
      const started = performance.now();
      const res = await fetch(`${m.url}/functions/v1/import-csv`, { method: 'POST', headers, body: form });
      const text = await res.text();
      const complete = text.split('\n\n').find((b) => b.includes('event: complete'));
      const data = complete ? JSON.parse(complete.split('data: ')[1]) : { error: text.slice(-500) };
      process.send?.({ ms: performance.now() - started, data });
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
  const dir = mkdtempSync(join(tmpdir(), 'auction-ops-bench-functions-'));
  chmodSync(dir, 0o755); // the embedded cluster runs as its own user under DATA_DIR inside it
  const file = join(dir, 'bench.csv');
  const rows = await writeCsv(file);
  const size = statSync(file).size;
  const settings = {
    PORT: '0',
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-'.padEnd(40, 'x'),
    RATE_LIMITS_ENABLED: 'false',
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    PENDING_CHECK_ENABLED: 'false',
    IMPORT_MAX_BYTES: String(size + 1024),
    FUNCTION_RATE_LIMITS: `execute-query=${QUERIES * 8}/minute`,
  };
  const server = await startServer(loadConfig({ ...settings, DATA_DIR: join(dir, 'data') }));
  const other = await startServer(
    loadConfig({ ...settings, DATA_DIR: join(dir, 'other'), DATABASE_URL: server.ctx.ownerUrl }),
  );
  const child = fork(fileURLToPath(import.meta.url), ['--bench-functions-child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(m: ChildRequest) =>
    new Promise<T>((resolve) => {
      child.once('message', (r) => resolve(r as T));
      child.send(m);
    });
  const sql = server.ctx.ownerSql;
  try {
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: server.ctx.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@functions.test', password: 'bench-password-123' }),
    });
    const session = (await signup.json()) as { access_token: string; user: { id: string } };
    const user = session.user;
    const token = session.access_token;
    const [auction] = await sql`insert into public.auctions (name, slug) values ('Bench', 'bench-fn') returning id`;
    await sql`insert into public.auction_members (auction_id, user_id, role)
      values (${auction.id}, ${user.id}, 'owner')`;
    const base = { url: server.url, apikey: server.ctx.anonKey, token };

    // Baseline: the same file straight into a table of the same types with COPY, from this process.
    await sql`create table public.bench_copy (lot bigint, price numeric, sold boolean, make text, sale_date date,
      registered_at timestamptz, miles bigint, notes text)`;
    let started = performance.now();
    const copy = await sql`copy public.bench_copy from stdin with (format csv, header)`.writable();
    await pipeline(createReadStream(file), copy);
    const copyMs = performance.now() - started;

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 20);
    const rssBefore = process.memoryUsage.rss();
    started = performance.now();
    const imported = await ask<{ ms: number; data: { row_count?: number; dataset_id?: string; error?: string } }>({
      ...base,
      kind: 'import',
      file,
      auctionId: auction.id,
    });
    clearInterval(sampler);
    if (!imported.data.row_count) throw new Error(`import failed: ${JSON.stringify(imported.data)}`);
    const importMs = imported.ms;
    const copyRate = rows / (copyMs / 1000);
    const importRate = imported.data.row_count / (importMs / 1000);
    console.log(`import-csv: ${(size / 1024 / 1024).toFixed(1)} MB, ${rows} rows x 8 columns`);
    console.log(`  postgres.js COPY (baseline)   ${(copyMs / 1000).toFixed(2)} s  ${Math.round(copyRate)} rows/s`);
    console.log(`  import-csv over HTTP + SSE    ${(importMs / 1000).toFixed(2)} s  ${Math.round(importRate)} rows/s`);
    console.log(`  import/COPY = ${(importRate / copyRate).toFixed(2)} (target >= 0.5); rows/s target >= 100000`);
    console.log(
      `  server RSS: ${Math.round(rssBefore / 1048576)} MB before, ` +
        `peak ${Math.round(peak / 1048576)} MB (target < 300 MB)`,
    );

    const q = await ask<{ uncached: number; cached: number; shared: number }>({
      ...base,
      kind: 'queries',
      datasetId: imported.data.dataset_id,
      otherUrl: other.url,
    });
    console.log(`execute-query over ${rows} rows, ${QUERIES} requests each, one client:`);
    console.log(`  uncached ${q.uncached.toFixed(2)} ms/request   cached ${q.cached.toFixed(2)} ms/request`);
    console.log(`  cached in another process (shared tier) ${q.shared.toFixed(2)} ms/request`);
    console.log(
      `  cached/uncached = ${(q.cached / q.uncached).toFixed(3)}, shared/uncached = ${(q.shared / q.uncached).toFixed(3)}`,
    );
  } finally {
    child.kill();
    await other.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--bench-functions-child')) void runChild();
