// rest-engine benchmark (`pnpm bench rest` or `node --import tsx scripts/bench-rest.ts`). Nothing here asserts timings.
// A 100k-row table under RLS with a to-many child, queried with a user JWT by wrk (50 connections) through:
//   engine: the real server (startServer, from the production build `pnpm start` runs): request log, CORS,
//           API-key gate, JWT verification (cached), the /rest/v1 adapter and the engine's
//           parse/plan/compile/execute/respond;
//   (a) a minimal Hono route sending the identical context and main statements;
//   (b) the same statements from a Node loop with postgres.js (50 concurrent workers).
// Plus a parse+plan+compile micro-benchmark. BENCH_SECONDS sets each run's length (default 10), BENCH_ROUNDS the
// rounds of the three; BENCH_REST_ONLY=engine stops after them (observability|command: that comparison only, without them).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect, type AddressInfo } from 'node:net';
import { ensureRoles, findFreePort, startEmbeddedPostgres } from '../packages/database/src/index.js';
import {
  installedPgBouncer,
  installedPostgres,
  startPgBouncer,
  startPgCluster,
} from '../packages/database/src/testing/pg-cluster.js';
import type { Config, RunningServer } from '../apps/server/src/index.js';
import { builtServer } from './support/bench-server.js';
import { SMOKE, sized } from './support/bench-smoke.js';
import type { ServerContext } from '../apps/server/src/context.js';
import { restRateLimitCheck } from '../apps/server/src/middleware/rate-limit.js';
import { createRestRateLimits } from '../apps/server/src/services/rate-limit-services.js';
import { offerGatewayHeaders } from '../apps/server/src/middleware/response-headers.js';
import { createLocalCertificates } from '../packages/server-config/src/local-certificates.js';
import { createRestEngine } from '../packages/rest-engine/src/index.js';
import { compile } from '../packages/rest-engine/src/compile/statement-compiler.js';
import { CONTEXT_SQL, type TxContext } from '../packages/rest-engine/src/execute.js';
import type { Statement } from '../packages/rest-engine/src/compile/sql-builder.js';
import { parse } from '../packages/rest-engine/src/parse/request-parser.js';
import { plan } from '../packages/rest-engine/src/plan/planner.js';

type ExecuteModule = typeof import('../packages/rest-engine/src/execute.js');
/** startServer and loadConfig from the production build (as `pnpm start` runs them): set by main(). */
let startServer: Awaited<ReturnType<typeof builtServer>>['startServer'];
let loadConfig: Awaited<ReturnType<typeof builtServer>>['loadConfig'];

/**
 * Baseline (a)'s execute() as plain JavaScript, compiled by esbuild like the server's build: loaded through tsx it
 * would pay tsx's `__name` wrapper on each closure, which the built engine does not.
 */
async function plainExecute(dir: string): Promise<ExecuteModule> {
  const { build } = await load<any>('esbuild');
  const outfile = join(dir, 'execute.mjs');
  await build({
    entryPoints: [new URL('../packages/rest-engine/src/execute.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(10, 1));
/** Rounds of the engine, (a) and (b) per request (BENCH_ROUNDS, default 3; 1 in the smoke run). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
/** Rounds of the other comparisons: `full`, or 1 in the smoke run. */
const rounds = (full: number) => sized(full, 1);
const CONNECTIONS = 50;
const serverRequire = createRequire(new URL('../apps/server/package.json', import.meta.url));
// The ESM builds, as the server itself loads them: a second (CommonJS) copy of @hono/node-server would replace the
// global Response with its own class, whose cache symbol the server's copy does not know, and push every engine
// response onto node-server's slow path (a ReadableStream per response) in this benchmark only.
const esmBuild = (path: string) => path.replace(/\/dist\/cjs\//, '/dist/').replace(/\.cjs$/, '.mjs');
const load = async <T>(name: string): Promise<T> =>
  import(pathToFileURL(esmBuild(serverRequire.resolve(name))).href) as Promise<T>;

/** Rows in items (twice as many notes): 100k, or 2,000 in the smoke run. */
const ITEMS = SMOKE ? 2_000 : 100_000;
const SCHEMA = `
create table items (id serial primary key, owner text not null, title text not null, price int not null);
create table item_notes (id serial primary key, item_id int not null references items (id), body text not null);
create index on items (owner, price); create index on item_notes (item_id);
alter table items enable row level security;
create policy items_owner on items for select to authenticated
  using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
grant usage on schema public to anon, authenticated, service_role;
grant select on items, item_notes to authenticated;
insert into items (owner, title, price)
  select 'user-' || (g % 100), 'item ' || g, g % 1000 from generate_series(1, ${ITEMS}) g;
insert into item_notes (item_id, body) select (g % ${ITEMS}) + 1, 'note ' || g from generate_series(1, ${2 * ITEMS}) g;
analyze;`;

/**
 * The benchmark's table, created and filled as plain SQL by the superuser before the server starts, outside the
 * migration ledger. It is a fixture of this run, not part of any release: applied through migrate() it became a
 * ledger row (bench/0001-bench-items.sql) that no release knows, and the server refused the database as one a newer
 * release had migrated (apps/server/test/newer-release.test.ts), at its start and again on the replicas' primary.
 */
async function seed(url: string): Promise<void> {
  const postgres = (await load<any>('postgres')).default;
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(SCHEMA);
  } finally {
    await sql.end();
  }
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  cpuUs?: number;
}
const fmt = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50.toFixed(2).padStart(6)} ms  ` +
  `p99 ${f.p99.toFixed(2).padStart(6)} ms` +
  (f.cpuUs === undefined ? '' : `  node CPU ${f.cpuUs.toFixed(0).padStart(4)} µs/req`);

async function wrk(url: string, headers: Record<string, string>): Promise<Figures> {
  const args = [
    '-t2',
    `-c${CONNECTIONS}`,
    `-d${SECONDS}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    url,
  ];
  // Asynchronous: the servers under test live in this process and must keep serving while wrk runs.
  // This process's CPU time per request is steadier than req/s on a shared machine (Postgres and wrk excluded).
  const cpu0 = process.cpuUsage();
  const { stdout: out } = await promisify(execFile)('wrk', args, { encoding: 'utf8' });
  const cpu = process.cpuUsage(cpu0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const ms = (s: string) => {
    const m = /([\d.]+)(us|ms|s)/.exec(s)!;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)![1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)![1]),
    cpuUs: requests > 0 ? (cpu.user + cpu.system) / requests : undefined,
  };
}

/**
 * BENCH_PROFILE=1: a CPU profile of this process around each engine and (a) run; prints the top self times.
 * BENCH_PROFILE=heap: a sampling heap profile instead; prints the functions that allocated most.
 */
async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  if (!process.env.BENCH_PROFILE) return run();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  if (process.env.BENCH_PROFILE === 'heap') return heapProfiled(session, label, run);
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const result = await run();
  const { profile } = (await session.post('Profiler.stop')) as {
    profile: {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
    };
  };
  session.disconnect();
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const id of profile.samples) {
    const f = byId.get(id)!.callFrame;
    const url = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/main\//, '');
    const key = `${f.functionName || '(anon)'} ${url}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  console.log(`\nprofile ${label}: top self time of ${total} samples`);
  for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`);
  writeFileSync(join(tmpdir(), `bench-rest-${label.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
  return result;
}

type Frame = { functionName: string; url: string; lineNumber: number };
const frameName = (f: Frame) =>
  `${f.functionName || '(anon)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\/[^/]+\//, '')}:${f.lineNumber + 1}`;

async function heapProfiled<T>(
  session: import('node:inspector/promises').Session,
  label: string,
  run: () => Promise<T>,
): Promise<T> {
  await session.post('HeapProfiler.enable');
  // Collected objects included: what matters here is what a request allocates, not what stays.
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  const result = await run();
  type Node = { callFrame: Frame; selfSize: number; children: Node[] };
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
  session.disconnect();
  const self = new Map<string, number>();
  const walk = (n: Node) => {
    const key = frameName(n.callFrame);
    self.set(key, (self.get(key) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  writeFileSync(join(tmpdir(), `bench-rest-${label.replace(/\W+/g, '-')}.heapprofile`), JSON.stringify(profile));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`\nheap profile ${label}: top allocating functions of ${(total / 1e6).toFixed(0)} MB sampled`);
  for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`);
  return result;
}

/**
 * The statements (text and parameters, one JSON line each) sent on `sql` while `send` runs, through postgres.js's
 * debug hook; nothing else may use the pool meanwhile.
 */
async function statementsSent(sql: { options: { debug: unknown } }, send: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  sql.options.debug = (_connection: number, text: string, params: unknown[]) =>
    seen.push(JSON.stringify([text, params]));
  try {
    await send();
  } finally {
    sql.options.debug = false;
  }
  return seen;
}

/** One GET as wrk sends it (the request line, Host, the given headers, nothing else); resolves with the body. */
function rawGet(base: string, target: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const head = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data.subarray(0, head).toString());
      if (head !== -1 && length && data.length >= head + 4 + Number(length[1])) {
        socket.destroy();
        const text = data.toString();
        if (!text.startsWith('HTTP/1.1 200')) reject(new Error(`${target}: ${text.slice(0, 300)}`));
        else resolve(text.slice(head + 4));
      }
    });
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines.join('')}\r\n`);
  });
}

interface Captured {
  readonly sent: string[];
  readonly ctx: TxContext;
  readonly main: Statement;
}

/** The context and main statement of a read as the engine sent them (BEGIN, context, main, COMMIT). */
function capturedRequest(sent: string[]): Captured {
  const parsed = sent.map((s) => JSON.parse(s) as [string, (string | null)[]]);
  const at = parsed.findIndex(([text]) => text === CONTEXT_SQL);
  if (at === -1 || parsed.length !== at + 3) throw new Error(`unexpected statements:\n${sent.join('\n')}`);
  const [searchPath, role, claims, method, path, headers, statementTimeout, timezone, cookies, names, values] =
    parsed[at][1];
  const ctx = {
    searchPath,
    role,
    claims,
    method,
    path,
    headers,
    statementTimeout,
    timezone,
    cookies,
    appSettingNames: names,
    appSettingValues: values,
  } as TxContext;
  const [text, params] = parsed[at + 1];
  return { sent, ctx, main: { sql: text, params } as Statement };
}

async function warm(url: string, headers: Record<string, string>): Promise<void> {
  if (SMOKE) return;
  await promisify(execFile)('wrk', [
    '-t2',
    `-c${CONNECTIONS}`,
    '-d2s',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    url,
  ]);
}

async function loop(run: () => Promise<unknown>): Promise<Figures> {
  const lat: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await run();
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
  return { rps: lat.length / ((performance.now() - start) / 1000), p50: p(0.5), p99: p(0.99) };
}

export async function main(): Promise<void> {
  if (spawnSync('wrk', ['--version']).error) {
    console.error('wrk is not installed: apt-get install -y wrk (the benchmark drives HTTP load with wrk).');
    process.exitCode = 1;
    return;
  }
  // Resolved from apps/server, which depends on them (the root package does not). Loosely typed for the same reason.
  const { Hono } = await load<any>('hono');
  const { serve } = await load<any>('@hono/node-server');
  const jose = await load<any>('jose');

  ({ startServer, loadConfig } = await builtServer());
  const dir = mkdtempSync(join(tmpdir(), 'bench-rest-'));
  const { execute, StatementBudget } = await plainExecute(dir);
  const cluster = await startEmbeddedPostgres({ dir, settings: { max_connections: 200 } });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const password = 'bench-password';
    await ensureRoles(cluster.url, password);
    console.log(`seeding ${ITEMS} items and ${2 * ITEMS} notes ...`);
    await seed(cluster.url);

    const jwtSecret = 'bench-secret-'.padEnd(40, 'x');
    const server = await startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: cluster.url,
        DATA_DIR: join(dir, 'data'),
        JWT_SECRET: jwtSecret,
        LOG_LEVEL: 'warn',
        WORKERS_ENABLED: 'false',
        DB_POOL_SIZE: '20',
        REST_MAX_ROWS: '1000',
        RATE_LIMITS_ENABLED: 'false',
      }),
    );
    stops.push(() => server.close());
    // The baselines use the server's own request pool, so all three paths share connections and settings.
    const sql = server.ctx.sql;
    // A second engine on the same pool, only to plan and compile the baselines' statements.
    const engine = await createRestEngine({ sql, schemas: ['public'], maxRows: 1000, listen: false });

    const secret = new TextEncoder().encode(jwtSecret);
    const sign = (claims: object) =>
      new jose.SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(secret);
    const apiKey = server.ctx.anonKey;
    const userToken = await sign({ sub: 'user-7', role: 'authenticated' });

    const requests = {
      'GET one row by primary key': { path: '/items', search: 'select=*&id=eq.1007' },
      'GET 25-row filtered ordered page + to-many embed': {
        path: '/items',
        search: 'select=id,title,price,item_notes(id,body)&price=gte.500&order=price,id&limit=25',
      },
    };
    const headersOf = (search: string) => ({
      apikey: apiKey,
      authorization: `Bearer ${userToken}`,
      accept: 'application/json',
      search,
    });

    // Baselines (a) and (b) send the statements the engine sends, byte for byte: the context statement's parameters
    // (claims, request headers, statement timeout ...) and the main statement are captured from one engine request
    // shaped as wrk sends it, then checked against what (a) sends.
    const engineUrl = server.url;
    const captured = new Map<string, Captured>();
    for (const [name, r] of Object.entries(requests)) {
      const h = headersOf(r.search);
      const sent = await statementsSent(sql, () =>
        rawGet(engineUrl, `/rest/v1${r.path}?${r.search}`, { apikey: h.apikey, authorization: h.authorization }),
      );
      captured.set(name, capturedRequest(sent));
    }
    const executeAs = (c: Captured) =>
      execute(sql, c.ctx, c.main, null, { readOnly: true, end: 'commit', statements, poolTimeoutMs: 10_000 });
    // Prepared like the engine's main statements.
    const statements = new StatementBudget(100);
    const baseline = new Hono();
    Object.keys(requests).forEach((name, i) => {
      const c = captured.get(name)!;
      baseline.get(`/b${i}`, async (ctx: any) => {
        const { result } = await executeAs(c);
        return ctx.body(result.body, 200, { 'content-type': 'application/json; charset=utf-8' });
      });
    });
    const listen = (fetch: (req: Request) => Response | Promise<Response>) =>
      new Promise<string>((resolve) => {
        const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
          resolve(`http://127.0.0.1:${info.port}`),
        );
        stops.push(() => new Promise((r) => s.close(r)));
      });
    const baseUrl = await listen(baseline.fetch);

    // Sanity: (a) sends the engine's statements and both answer the same body.
    for (const [i, [name, r]] of Object.entries(requests).entries()) {
      const h = headersOf(r.search);
      const auth = { apikey: h.apikey, authorization: h.authorization };
      const fromBaseline = await statementsSent(sql, () => rawGet(baseUrl, `/b${i}`, auth));
      if (JSON.stringify(fromBaseline) !== JSON.stringify(captured.get(name)!.sent))
        throw new Error(`baseline (a) sends other statements than the engine:\n${fromBaseline.join('\n')}`);
      const a = await (await fetch(`${engineUrl}/rest/v1${r.path}?${r.search}`, { headers: auth })).text();
      const b = await (await fetch(`${baseUrl}/b${i}`)).text();
      if (a !== b) throw new Error(`engine and baseline differ:\n${a.slice(0, 200)}\n${b.slice(0, 200)}`);
    }
    const first = captured.get(Object.keys(requests)[0])!.sent;
    console.log(`\nstatements per request (engine and (a) alike): ${first.length}`);
    for (const s of first) console.log(`  ${s.length > 150 ? `${s.slice(0, 150)}...` : s}`);

    console.log(`\nmicro-benchmark: parse+plan+compile (µs per request)`);
    for (const [name, r] of Object.entries(requests)) {
      const input = { method: 'GET', ...r, headers: { accept: 'application/json', prefer: '' } };
      const opts = {
        schemas: ['public'],
        maxRows: 1000,
        aggregatesEnabled: false,
        allowUnfilteredWrites: false,
        txOverridable: false,
      };
      for (let i = 0; i < sized(5000, 50); i++) compile(plan(parse(input), engine.schemaCache, opts), 1000);
      const n = sized(50_000, 500),
        t = performance.now();
      for (let i = 0; i < n; i++) compile(plan(parse(input), engine.schemaCache, opts), 1000);
      console.log(`  ${name.padEnd(50)} ${(((performance.now() - t) * 1000) / n).toFixed(2)} µs`);
    }

    // Warm-up (JIT, prepared statements on every pooled connection) so the first measured run is not penalised.
    for (const [i, [, r]] of Object.entries(requests).entries()) {
      const h = headersOf(r.search);
      const auth = { apikey: h.apikey, authorization: h.authorization };
      await warm(`${engineUrl}/rest/v1${r.path}?${r.search}`, auth);
      await warm(`${baseUrl}/b${i}`, auth);
    }
    // Rounds of the three paths in rotated order, so that drift on a shared machine falls on all of them alike;
    // ratios are of the means. wrk sends (a) the engine's headers too (API key and token), so both parse the same
    // request; (a) does nothing with them.
    // BENCH_REST_ONLY=observability|command runs only that comparison; =engine stops after the engine runs.
    const only = process.env.BENCH_REST_ONLY;
    const engineRuns = !only || only === 'engine' ? Object.entries(requests) : [];
    if (engineRuns.length > 0)
      console.log(`\nload: ${CONNECTIONS} connections, ${SECONDS}s per run, wrk -t2, ${ROUNDS} rounds`);
    for (const [i, [name, r]] of engineRuns.entries()) {
      const h = headersOf(r.search);
      const auth = { apikey: h.apikey, authorization: h.authorization };
      const c = captured.get(name)!;
      const paths = {
        engine: (round: number) =>
          profiled(`engine ${i} round ${round}`, () => wrk(`${engineUrl}/rest/v1${r.path}?${r.search}`, auth)),
        a: (round: number) => profiled(`baseline ${i} round ${round}`, () => wrk(`${baseUrl}/b${i}`, auth)),
        b: () => loop(() => executeAs(c)),
      };
      const order = Object.keys(paths) as (keyof typeof paths)[];
      const runs: Record<keyof typeof paths, Figures[]> = { engine: [], a: [], b: [] };
      const loads: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const path of [...order.slice(round % 3), ...order.slice(0, round % 3)])
          runs[path].push(await paths[path](round));
        loads.push(loadavg()[0]);
      }
      const mean = (fs: Figures[], key: 'rps' | 'cpuUs') => fs.reduce((s, f) => s + (f[key] ?? 0), 0) / fs.length;
      console.log(`\n${name}`);
      for (const [label, path] of [
        ['engine (HTTP, API key, JWT)', 'engine'],
        ['(a) minimal Hono route     ', 'a'],
        ['(b) postgres.js loop       ', 'b'],
      ] as const)
        for (const f of runs[path]) console.log(`  ${label} ${fmt(f)}`);
      const [e, a, b] = [mean(runs.engine, 'rps'), mean(runs.a, 'rps'), mean(runs.b, 'rps')];
      const [eCpu, aCpu] = [mean(runs.engine, 'cpuUs'), mean(runs.a, 'cpuUs')];
      console.log(
        `  means: engine ${e.toFixed(0)} req/s ${eCpu.toFixed(0)} µs/req, (a) ${a.toFixed(0)} req/s ` +
          `${aCpu.toFixed(0)} µs/req, (b) ${b.toFixed(0)} req/s\n` +
          `  engine/(a) = ${(e / a).toFixed(2)} (target >= 0.95)   engine/(b) = ${(e / b).toFixed(2)} (target >= 0.8)   ` +
          `node CPU per request engine/(a) = ${(eCpu / aCpu).toFixed(2)} (target <= 1.05)   ` +
          `load average ${loads.map((l) => l.toFixed(1)).join(' ')}`,
      );
    }
    const pageHeaders = headersOf(requests['GET 25-row filtered ordered page + to-many embed'].search);
    if (!only) {
      await limitsAndHttpsRuns(server, sign, stops);
      await preparingAndPoolerRuns(server, userToken, stops);
      await replicaRuns(server, userToken, stops);
      await clusterRuns(cluster.url, jwtSecret, pageHeaders);
    }
    if (!only || only === 'observability') await observabilityRuns(cluster.url, jwtSecret, pageHeaders);
    if (!only || only === 'command') await commandRuns(server, cluster.url, password, jwtSecret, userToken, requests);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Rate limits and HTTPS: the limiter's cost per request, and the same request with limits on (memory store) and
// over HTTPS against the plain run (limits off, plain HTTP), each ratio printed. Targets: limits cost < 2% of
// throughput and < 2 µs per request; HTTPS at least 0.8 of plain HTTP.

type Context = Parameters<ReturnType<typeof restRateLimitCheck>>[0];

async function limitsMicroBenchmark(ctx: ServerContext, userId: string): Promise<void> {
  const huge = [
    { limit: 1e12, windowSeconds: 60 },
    { limit: 1e12, windowSeconds: 3600 },
  ];
  // The real check and store as the gateway runs them; limits no client reaches, so every call is allowed.
  const check = restRateLimitCheck({
    ...createRestRateLimits(ctx),
    rules: { free: huge, pro: huge, enterprise: huge },
  });
  const vars: Record<string, unknown> = { claims: { sub: userId, role: 'authenticated' }, clientIp: '' };
  const c = {
    get: (k: string) => vars[k],
    set: (k: string, v: unknown) => {
      vars[k] = v;
    },
    env: { incoming: { url: '/rest/v1/items?select=id,title&limit=25' } },
    req: { path: '/rest/v1/items' },
  } as unknown as Context;
  const ips = Array.from({ length: 1024 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
  const names = ['x-request-id'];
  const nothing: typeof check = () => undefined;
  const time = async (fn: typeof check, n: number) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      vars.clientIp = ips[i & 1023];
      offerGatewayHeaders(c as never, names, ['id']);
      const r = fn(c);
      if (r instanceof Promise) await r;
    }
    return ((performance.now() - t) * 1000) / n;
  };
  await time(check, sized(200_000, 1000)); // warm-up, and the user's tier looked up once and cached
  await time(nothing, sized(200_000, 1000));
  const n = sized(1_000_000, 10_000);
  const withLimits = await time(check, n);
  const without = await time(nothing, n);
  console.log('\nmicro-benchmark: /rest/v1 rate limit in memory (1,024 client addresses, a signed-in user)');
  console.log(`  with the check             ${withLimits.toFixed(2)} µs per request`);
  console.log(`  without                    ${without.toFixed(2)} µs per request`);
  console.log(`  the limit's own cost       ${(withLimits - without).toFixed(2)} µs per request (target < 2)`);
}

async function limitsAndHttpsRuns(
  plain: RunningServer,
  sign: (claims: object) => Promise<string>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const owner = plain.ctx.ownerSql;
  // A signed-in user of an enterprise auction (the tier is looked up and cached), owning a copy of user-7's items so
  // the request reads the same rows through the same policy.
  const [{ id: userId }] = await owner<{ id: string }[]>`
    insert into auth.users (email) values ('bench-limits@bench.test') returning id`;
  await owner`insert into public.auctions (name, slug, created_by, subscription_tier)
    values ('Bench limits', 'bench-limits', ${userId}, 'enterprise')`;
  await owner`insert into items (owner, title, price) select ${userId}, title, price from items where owner = 'user-7'`;
  await owner`analyze items`;
  const token = await sign({ sub: userId, role: 'authenticated' });
  await limitsMicroBenchmark(plain.ctx, userId);

  const certDir = mkdtempSync(join(tmpdir(), 'bench-rest-tls-'));
  stops.push(async () => rmSync(certDir, { recursive: true, force: true }));
  const certs = createLocalCertificates();
  writeFileSync(join(certDir, 'cert.pem'), certs.cert);
  writeFileSync(join(certDir, 'key.pem'), certs.key);
  const variant = async (changes: Partial<Config>) => {
    const config = { ...plain.ctx.config, PORT: 0, derivedUrls: { publicUrl: true, appUrl: true }, ...changes };
    const s = await startServer(config);
    stops.push(() => s.close());
    return s;
  };
  const limited = await variant({
    RATE_LIMITS_ENABLED: true,
    RATE_LIMITS_STORE: 'memory',
    RATE_LIMITS_ENTERPRISE_PER_MINUTE: 1e9,
    RATE_LIMITS_ENTERPRISE_PER_HOUR: 1e9,
  });
  const secure = await variant({ TLS_CERT_FILE: join(certDir, 'cert.pem'), TLS_KEY_FILE: join(certDir, 'key.pem') });

  const target = '/rest/v1/items?select=id,title,price&price=gte.500&order=price,id&limit=25';
  const headers = { apikey: plain.ctx.anonKey, authorization: `Bearer ${token}` };
  const first = await fetch(`${limited.url}${target}`, { headers });
  if (first.headers.get('x-ratelimit-limit') !== '1000000000')
    throw new Error('limits run: not on the enterprise tier');
  if ((await first.text()) !== (await (await fetch(`${plain.url}${target}`, { headers })).text()))
    throw new Error('limits run and plain run differ');
  for (const s of [plain, limited, secure]) await warm(`${s.url}${target}`, headers);
  // Three rounds, each running the three servers in a rotated order: drift on a shared machine then falls on all
  // of them alike instead of on one side of a ratio. Each ratio is of the summed requests.
  const kinds = { plain, limits: limited, https: secure } as const;
  const runs: Record<keyof typeof kinds, Figures[]> = { plain: [], limits: [], https: [] };
  const order = Object.keys(kinds) as (keyof typeof kinds)[];
  for (let round = 0; round < rounds(3); round++)
    for (const kind of [...order.slice(round), ...order.slice(0, round)])
      runs[kind].push(await wrk(`${kinds[kind].url}${target}`, headers));
  const mean = (fs: Figures[], key: 'rps' | 'cpuUs') => fs.reduce((sum, f) => sum + (f[key] ?? 0), 0) / fs.length;
  console.log(`\nrate limits and HTTPS: GET 25-row page as a signed-in enterprise user (${CONNECTIONS} connections)`);
  for (const [label, kind] of [
    ['plain (limits off, HTTP)', 'plain'],
    ['limits on (memory store)', 'limits'],
    ['HTTPS (TLS, HTTP/1.1)   ', 'https'],
  ] as const) {
    for (const f of runs[kind]) console.log(`  ${label}   ${fmt(f)}`);
  }
  const ratio = (kind: 'limits' | 'https') => mean(runs[kind], 'rps') / mean(runs.plain, 'rps');
  const cpu = (kind: 'limits' | 'https') => mean(runs[kind], 'cpuUs') - mean(runs.plain, 'cpuUs');
  console.log(
    `  limits/plain = ${ratio('limits').toFixed(3)} (target >= 0.98)   HTTPS/plain = ${ratio('https').toFixed(3)} ` +
      `(target >= 0.8)   node CPU per request: ` +
      `limits ${cpu('limits') >= 0 ? '+' : ''}${cpu('limits').toFixed(1)} µs, ` +
      `HTTPS +${cpu('https').toFixed(1)} µs`,
  );
}

// ---- WEB_CONCURRENCY: the server as `pnpm start` runs it (src/main.ts in a child process, on the bench database),
// with one process and with two, the same request from wrk in alternating rounds; req/s, the ratio, and the CPU each
// process used (from /proc/<pid>/stat), which shows whether the request path spreads over the workers. On a machine
// whose cores Postgres and wrk share, the ratio is bounded by what the cores have left, not by the server.

interface ClusterFigures extends Figures {
  /** CPU seconds per process during the run: the primary first, then each worker. */
  cpu: { pid: number; role: string; seconds: number }[];
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** utime + stime of a process, in seconds. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The node processes the primary forked (its workers). */
function childNodes(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return stat.includes('(node)') && stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

// ---- The `rest-engine` command (PostgREST's settings, the package's node:http adapter and JWT check) against the
// server's own /rest/v1 on the same database and pool size, one process each. Target: the command no slower (>= 0.95).
async function commandRuns(
  server: RunningServer,
  clusterUrl: string,
  authenticatorPassword: string,
  jwtSecret: string,
  userToken: string,
  requests: Record<string, { path: string; search: string }>,
): Promise<void> {
  const port = await findFreePort();
  const dbUri = new URL(clusterUrl);
  dbUri.username = 'authenticator';
  dbUri.password = authenticatorPassword;
  const main = new URL('../packages/rest-engine/src/cli/main.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      PGRST_DB_URI: dbUri.href,
      PGRST_DB_SCHEMAS: 'public',
      PGRST_DB_ANON_ROLE: 'anon',
      PGRST_JWT_SECRET: jwtSecret,
      PGRST_DB_POOL: '20',
      PGRST_DB_MAX_ROWS: '1000',
      PGRST_SERVER_HOST: '127.0.0.1',
      PGRST_SERVER_PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error('the rest-engine command exited at start');
      if (
        await fetch(`${url}/`).then(
          (r) => r.status < 500,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const authorization = `Bearer ${userToken}`;
    console.log(`\nrest-engine command (PostgREST settings) against the server's /rest/v1, one process each`);
    for (const [name, r] of Object.entries(requests)) {
      const viaServer = `${server.url}/rest/v1${r.path}?${r.search}`;
      const viaCommand = `${url}${r.path}?${r.search}`;
      const serverHeaders = { apikey: server.ctx.anonKey, authorization };
      const [a, b] = [
        await (await fetch(viaServer, { headers: serverHeaders })).text(),
        await (await fetch(viaCommand, { headers: { authorization } })).text(),
      ];
      if (a !== b) throw new Error(`the command and the server differ on ${name}`);
      await warm(viaCommand, { authorization });
      const srv = await wrk(viaServer, serverHeaders);
      const cmd = await wrk(viaCommand, { authorization });
      console.log(`  ${name}`);
      console.log(`    server /rest/v1      ${fmt({ ...srv, cpuUs: undefined })}`);
      console.log(`    rest-engine command  ${fmt({ ...cmd, cpuUs: undefined })}`);
      console.log(
        `    command/server = ${(cmd.rps / srv.rps).toFixed(2)} (target >= 0.95)   load ${loadavg()[0].toFixed(1)}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function startServerProcess(
  env: Record<string, string>,
): Promise<{ url: string; pids: () => number[]; stop(): Promise<void> }> {
  const port = await findFreePort();
  const start = new URL('../apps/server/bin/start.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [start], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server (${JSON.stringify(env.WEB_CONCURRENCY)}) exited at start`);
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pids: () => [child.pid!, ...childNodes(child.pid!)],
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function measuredRun(url: string, headers: Record<string, string>, pids: number[]): Promise<ClusterFigures> {
  const before = pids.map(cpuSecondsOf);
  const figures = await wrk(url, headers);
  const cpu = pids.map((pid, i) => ({
    pid,
    role: i === 0 ? (pids.length > 1 ? 'primary' : 'process') : `worker ${i}`,
    seconds: cpuSecondsOf(pid) - before[i],
  }));
  return { ...figures, cpu };
}

async function clusterRuns(databaseUrl: string, jwtSecret: string, headers: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rest-cluster-'));
  const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
  try {
    const common = {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: jwtSecret,
      WORKERS_ENABLED: 'false',
      RATE_LIMITS_ENABLED: 'false',
      DB_POOL_SIZE: '20',
    };
    const single = await startServerProcess({ ...common, DATA_DIR: join(dir, 'one'), WEB_CONCURRENCY: '1' });
    servers.push(single);
    const two = await startServerProcess({ ...common, DATA_DIR: join(dir, 'two'), WEB_CONCURRENCY: '2' });
    servers.push(two);
    const target = `/rest/v1/items?${headers.search}`;
    const { search: _, ...requestHeaders } = headers;
    const kinds = { single, two } as const;
    for (const s of [single, two]) await warm(`${s.url}${target}`, requestHeaders);
    const runs: Record<keyof typeof kinds, ClusterFigures[]> = { single: [], two: [] };
    for (let round = 0; round < rounds(2); round++)
      for (const kind of round % 2 ? (['two', 'single'] as const) : (['single', 'two'] as const))
        runs[kind].push(await measuredRun(`${kinds[kind].url}${target}`, requestHeaders, kinds[kind].pids()));
    console.log(`\nWEB_CONCURRENCY: GET 25-row page + embed, server as a child process (${CONNECTIONS} connections)`);
    for (const kind of ['single', 'two'] as const) {
      for (const f of runs[kind]) {
        const requests = f.rps * SECONDS;
        const perProcess = f.cpu
          .map(
            (c) =>
              `${c.role} ${((100 * c.seconds) / SECONDS).toFixed(0)}% ` +
              `${((c.seconds * 1e6) / requests).toFixed(0)} µs/req`,
          )
          .join(', ');
        console.log(
          `  WEB_CONCURRENCY=${kind === 'single' ? 1 : 2}  ${fmt({ ...f, cpuUs: undefined })}  CPU: ${perProcess}`,
        );
      }
    }
    const mean = (fs: ClusterFigures[]) => fs.reduce((sum, f) => sum + f.rps, 0) / fs.length;
    console.log(`  WEB_CONCURRENCY=2 / WEB_CONCURRENCY=1 = ${(mean(runs.two) / mean(runs.single)).toFixed(2)}`);
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Metrics and tracing: the server as `pnpm start` runs it, once with metrics off (METRICS_ENABLED=false), once
// with metrics on (the default), once with metrics on and tracing at 100% sampling (OTLP/protobuf to a sink in its
// own process, so the collector's work is not counted against the server), each in its own process so the tracing
// SDK and its statement wrapper touch only their own. Rotated rounds; ratios of the mean req/s. Targets: metrics
// >= 0.97, tracing >= 0.85 of both off.

/** An OTLP sink in a child process: answers every export with 200 and keeps nothing. */
async function startOtlpSink(): Promise<{ url: string; stop(): void }> {
  const code =
    "const s=require('node:http').createServer((q,r)=>{q.resume();q.on('end',()=>r.writeHead(200,{'content-type':" +
    "'application/x-protobuf'}).end())});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))";
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function observabilityRuns(databaseUrl: string, jwtSecret: string, headers: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rest-observability-'));
  const sink = await startOtlpSink();
  const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
  try {
    const common = {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: jwtSecret,
      WORKERS_ENABLED: 'false',
      RATE_LIMITS_ENABLED: 'false',
      DB_POOL_SIZE: '20',
      WEB_CONCURRENCY: '1',
    };
    const variants = [
      ['metrics and tracing off', { METRICS_ENABLED: 'false' }],
      ['metrics on', {}],
      ['metrics on, tracing 100%', { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on' }],
    ] as const;
    for (const [i, [, env]] of variants.entries())
      servers.push(await startServerProcess({ ...common, ...env, DATA_DIR: join(dir, String(i)) }));
    const target = `/rest/v1/items?${headers.search}`;
    const { search: _, ...requestHeaders } = headers;
    for (const s of servers) await warm(`${s.url}${target}`, requestHeaders);
    // On a loaded machine req/s swings between runs of the same server; the server's own CPU time per request
    // (from /proc) is the steadier figure, so both ratios are printed.
    const runs = servers.map(() => [] as ClusterFigures[]);
    for (let round = 0; round < rounds(3); round++)
      for (let k = 0; k < servers.length; k++) {
        const i = (k + round) % servers.length;
        runs[i].push(await measuredRun(`${servers[i].url}${target}`, requestHeaders, servers[i].pids()));
      }
    const mean = (fs: ClusterFigures[]) => fs.reduce((sum, f) => sum + f.rps, 0) / fs.length;
    const cpuPerRequest = (fs: ClusterFigures[]) =>
      (1e6 * fs.reduce((sum, f) => sum + f.cpu[0].seconds, 0)) / fs.reduce((sum, f) => sum + f.rps * SECONDS, 0);
    console.log(
      `\nmetrics and tracing: GET 25-row page + embed, server as a child process (${CONNECTIONS} connections)`,
    );
    variants.forEach(([label], i) => {
      for (const f of runs[i])
        console.log(
          `  ${label.padEnd(26)} ${fmt({ ...f, cpuUs: (1e6 * f.cpu[0].seconds) / (f.rps * SECONDS) })} (server process)`,
        );
    });
    const ratio = (i: number) => (mean(runs[i]) / mean(runs[0])).toFixed(3);
    const cpuRatio = (i: number) => (cpuPerRequest(runs[0]) / cpuPerRequest(runs[i])).toFixed(3);
    console.log(
      `  req/s: metrics/off = ${ratio(1)} (target >= 0.97)   tracing/off = ${ratio(2)} (target >= 0.85)\n` +
        `  by server CPU per request (off/on): metrics ${cpuRatio(1)}   tracing ${cpuRatio(2)}   ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    for (const s of servers) await s.stop();
    sink.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Preparing, poolers and read replicas: the same 25-row read as user-7 (RLS by owner) on server variants, each
// against the single-process server with preparing on and no replicas, measured in the same rounds (rotated order,
// so drift on a shared machine falls on every variant alike). Ratios are of the mean req/s.

const SCALE_TARGET = '/rest/v1/items?select=id,title,price&price=gte.500&order=price,id&limit=25';

async function startVariant(base: RunningServer, changes: Partial<Config>, stops: (() => Promise<unknown>)[]) {
  const config = { ...base.ctx.config, PORT: 0, derivedUrls: { publicUrl: true, appUrl: true }, ...changes };
  const s = await startServer(config);
  stops.push(() => s.close());
  return s;
}

/** Rounds of wrk over the servers in rotated order; prints each run and each variant's ratio to the first. */
async function compareRuns(title: string, servers: [string, RunningServer][], headers: Record<string, string>) {
  const bodies = await Promise.all(
    servers.map(async ([, s]) => (await fetch(`${s.url}${SCALE_TARGET}`, { headers })).text()),
  );
  if (bodies.some((b) => b !== bodies[0])) throw new Error(`${title}: the variants answer differently`);
  for (const [, s] of servers) await warm(`${s.url}${SCALE_TARGET}`, headers);
  const runs = servers.map(() => [] as Figures[]);
  for (let round = 0; round < rounds(2); round++)
    for (let k = 0; k < servers.length; k++) {
      const i = (k + round) % servers.length;
      runs[i].push(await wrk(`${servers[i][1].url}${SCALE_TARGET}`, headers));
    }
  const mean = (fs: Figures[]) => fs.reduce((sum, f) => sum + f.rps, 0) / fs.length;
  console.log(`\n${title} (${CONNECTIONS} connections, ${runs[0].length} rounds)`);
  servers.forEach(([label], i) => {
    for (const f of runs[i]) console.log(`  ${label.padEnd(34)} ${fmt(f)}`);
  });
  const base = mean(runs[0]);
  console.log(
    `  ${servers
      .slice(1)
      .map(([label], i) => `${label.trim()}/${servers[0][0].trim()} = ${(mean(runs[i + 1]) / base).toFixed(2)}`)
      .join('   ')}`,
  );
}

/** DB_PREPARE=false (what a transaction-mode pooler needs), and the same through PgBouncer when it is installed. */
async function preparingAndPoolerRuns(plain: RunningServer, token: string, stops: (() => Promise<unknown>)[]) {
  const headers = { apikey: plain.ctx.anonKey, authorization: `Bearer ${token}` };
  const servers: [string, RunningServer][] = [
    ['single process, preparing on', plain],
    ['DB_PREPARE=false', await startVariant(plain, { DB_PREPARE: false }, stops)],
  ];
  if (installedPgBouncer()) {
    const owner = new URL(plain.ctx.ownerUrl);
    const bouncer = await startPgBouncer({
      targetPort: Number(owner.port),
      users: { authenticator: 'bench-password' },
      poolSize: 20,
    });
    stops.push(() => bouncer.stop());
    const pooled = await startVariant(
      plain,
      { DB_PREPARE: false, DATABASE_POOLER_URL: bouncer.url(owner.pathname.slice(1)) },
      stops,
    );
    servers.push(['PgBouncer (transaction), no prepare', pooled]);
  } else {
    console.log(
      '\nPgBouncer run skipped: pgbouncer is not installed (apt-get install -y pgbouncer, or PGBOUNCER=path)',
    );
  }
  await compareRuns('preparing and poolers: GET 25-row page as user-7', servers, headers);
}

/**
 * A read replica needs pg_basebackup, which the embedded PostgreSQL lacks: with Debian's postgresql-15 installed
 * (or PG_BIN_DIR), a PostgreSQL 15 primary and one streaming replica are started and seeded like the embedded
 * cluster, and the server with DATABASE_READ_URLS is compared with a single-process server on the same primary.
 */
async function replicaRuns(plain: RunningServer, token: string, stops: (() => Promise<unknown>)[]) {
  const binDir = installedPostgres();
  if (!binDir) {
    console.log(
      '\nread replica run skipped: it needs PostgreSQL with pg_basebackup for a streaming replica ' +
        '(apt-get install -y postgresql-15, or PG_BIN_DIR=<bin directory>)',
    );
    return;
  }
  const cluster = await startPgCluster({ binDir, replicas: 1 });
  stops.push(() => cluster.close());
  await ensureRoles(cluster.primary.url, 'bench-password');
  console.log('\nseeding the PostgreSQL 15 primary (the replica copies it) ...');
  await seed(cluster.primary.url);
  const onPrimary = { DATABASE_URL: cluster.primary.url, DB_AUTHENTICATOR_PASSWORD: 'bench-password' };
  const alone = await startVariant(plain, onPrimary, stops);
  const replicated = await startVariant(plain, { ...onPrimary, DATABASE_READ_URLS: [cluster.replicas[0].url] }, stops);
  // The replica must have replayed the seed before it serves: wait until it answers like the primary.
  const headers = { apikey: alone.ctx.anonKey, authorization: `Bearer ${token}` };
  const expected = await (await fetch(`${alone.url}${SCALE_TARGET}`, { headers })).text();
  const deadline = Date.now() + 60_000;
  while ((await (await fetch(`${replicated.url}${SCALE_TARGET}`, { headers })).text()) !== expected) {
    if (Date.now() > deadline) throw new Error('the replica did not catch up with the seed');
    await new Promise((r) => setTimeout(r, 200));
  }
  await compareRuns(
    'read replica: GET 25-row page as user-7 on a PostgreSQL 15 primary',
    [
      ['single process, primary only', alone],
      ['reads on 1 streaming replica', replicated],
    ],
    headers,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
