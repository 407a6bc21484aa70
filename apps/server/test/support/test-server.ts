// One way for tests to run the real server: a database cloned from the migrated template, a data directory of
// its own, the configuration from the environment given (over quiet test defaults), and a stop() that removes
// all three. Exported as `@auction-ops/server/testing` for the packages' end-to-end tests.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { inject } from 'vitest';
import { WATCHDOG_MARK } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import type { FakeS3 } from '@auction-ops/storage/testing';
import { loadConfig } from '@auction-ops/server-config';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { type RunningServer, startServer } from '../../src/server.js';

export interface TestServer {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  jwtSecret: string;
  db: TestDatabase;
  server: RunningServer;
  dataDir: string;
  /** A supabase-js client of this server, as the anon key or with the given access token. */
  client(accessToken?: string): SupabaseClient;
  /** A user signed up through supabase-js (password TEST_PASSWORD), with its signed-in client. */
  signUp(email: string, fullName?: string): Promise<SignedUpUser>;
  stop(): Promise<void>;
}

export const TEST_PASSWORD = 'correct-horse-battery-9';

export interface SignedUpUser {
  id: string;
  email: string;
  client: SupabaseClient;
  /** The access token of the session sign-up opened (auto-confirm is on in tests). */
  token: string;
}

// supabase-js builds its realtime client eagerly and Node 20 has no global WebSocket; tests that open channels
// pass a real transport through client options of their own.
export class NoWebSocket {
  constructor() {
    throw new Error('this test client does not open realtime channels');
  }
}

export const TEST_CLIENT_OPTIONS = {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: NoWebSocket as never },
};

/** A supabase-js client of a server, as the anon key or with the given access token. */
export function testClient(url: string, anonKey: string, accessToken?: string): SupabaseClient {
  return createClient(url, anonKey, {
    ...TEST_CLIENT_OPTIONS,
    ...(accessToken ? { global: { headers: { Authorization: `Bearer ${accessToken}` } } } : {}),
  });
}

/** In the pooler runs, requests go through PgBouncer in transaction mode, which keeps no prepared statements. */
function poolerSettings(database: string): Record<string, string> {
  const pooler = inject('pgPoolerUrl');
  return pooler ? { DATABASE_POOLER_URL: `${pooler}${database}`, DB_PREPARE: 'false' } : {};
}

/**
 * Starts a server on a fresh database. Defaults: any free port, silent logs, a random JWT secret, and the data
 * interface's per-IP limits off (tests about limits turn them on); `env` overrides any of them. `beforeStart`
 * prepares the database or the data directory before the server reads them. `db` puts the server on a database
 * another server uses too (then stop() leaves it to its owner).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { beforeStart?: (prepared: { db: TestDatabase; dataDir: string }) => Promise<void>; db?: TestDatabase } = {},
): Promise<TestServer> {
  const db = options.db ?? (await createTestDatabase(migrationSets));
  const dropDb = options.db ? async () => {} : () => db.drop();
  const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-test-server-'));
  let server: RunningServer;
  try {
    await options.beforeStart?.({ db, dataDir });
    server = await startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: db.ownerUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        WEB_CONCURRENCY: '1',
        JWT_SECRET: randomBytes(32).toString('base64url'),
        RATE_LIMITS_ENABLED: 'false',
        ...poolerSettings(db.name),
        ...env,
      }),
    );
  } catch (error) {
    await dropDb();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: server.url,
    anonKey: server.ctx.anonKey,
    serviceRoleKey: server.ctx.serviceRoleKey,
    jwtSecret: server.ctx.jwtSecret,
    db,
    server,
    dataDir,
    client: (accessToken) => testClient(server.url, server.ctx.anonKey, accessToken),
    async signUp(email, fullName) {
      const client = createClient(server.url, server.ctx.anonKey, TEST_CLIENT_OPTIONS);
      const { data, error } = await client.auth.signUp({
        email,
        password: TEST_PASSWORD,
        options: fullName === undefined ? {} : { data: { full_name: fullName } },
      });
      if (error) throw error;
      return { id: data.user!.id, email, client, token: data.session!.access_token };
    },
    async stop() {
      await server.close();
      await dropDb();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<unknown>;
  /** What the process printed on stdout so far (the start-up banner, logs). */
  output(): string;
}

/** Where a server process keeps its state: its data directory, its database and its JWT secret. */
export interface ProcessState {
  dataDir: string;
  databaseUrl: string;
  jwtSecret: string;
}

/** The environment of a server process over that state: `env` on top, warnings and errors logged only. */
export function processEnv(state: ProcessState, env: Record<string, string> = {}): Record<string, string> {
  const own = { DATA_DIR: state.dataDir, DATABASE_URL: state.databaseUrl, JWT_SECRET: state.jwtSecret };
  return { LOG_LEVEL: 'warn', ...own, ...env };
}

/**
 * The server as a child process (for tests that kill it), as `pnpm start` runs it: `start()` spawns `bin/start.mjs`
 * (the production build) on `port` with `env` over the test's own environment (see processEnv), `healthy()` says
 * whether GET /health answers 200.
 */
export function serverProcess(env: Record<string, string>, port: number) {
  const start = fileURLToPath(new URL('../../bin/start.mjs', import.meta.url));
  return {
    start(): ServerProcess {
      const child = spawn(process.execPath, [start], {
        env: { ...process.env, ...env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout?.on('data', (d) => {
        out += d;
      });
      return { child, exited: new Promise((r) => child.on('exit', r)), output: () => out };
    },
    async healthy(): Promise<boolean> {
      try {
        return (await fetch(`http://127.0.0.1:${port}/health`)).ok;
      } catch {
        return false;
      }
    },
  };
}

/** The settings of the S3 backend on a fake S3. */
export function s3Environment(s3: FakeS3): Record<string, string> {
  return {
    STORAGE_BACKEND: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

/** The postgres processes running a cluster under `dir` (a stopped server leaves none). */
export function postgresProcessesFor(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('postgres') && line.includes(dir) && line.includes(' -D '));
}

/** The pids of the watchdogs (packages/database/src/postgres-watchdog.ts) of the cluster under `dir`. */
export function watchdogsFor(dir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(WATCHDOG_MARK) && line.includes(dir))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

export { workerPids } from './process-children.js';
