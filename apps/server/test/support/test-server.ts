// One way for tests to run the real server: a database cloned from the migrated template, a data directory of
// its own, the configuration from the environment given (over quiet test defaults), and a stop() that removes
// all three. Exported as `@auction-ops/server/testing` for the packages' end-to-end tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { loadConfig } from '../../src/config/index.js';
import { migrationSets } from '../../src/migration-sets.js';
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

/**
 * Starts a server on a fresh database. Defaults: any free port, silent logs, a random JWT secret, and the data
 * interface's per-IP limits off (tests about limits turn them on); `env` overrides any of them. `beforeStart`
 * prepares the database or the data directory before the server reads them.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { beforeStart?: (prepared: { db: TestDatabase; dataDir: string }) => Promise<void> } = {},
): Promise<TestServer> {
  const db = await createTestDatabase(migrationSets);
  const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-test-server-'));
  let server: RunningServer;
  try {
    await options.beforeStart?.({ db, dataDir });
    server = await startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: db.ownerUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        JWT_SECRET: randomBytes(32).toString('base64url'),
        RATE_LIMITS_ENABLED: 'false',
        ...env,
      }),
    );
  } catch (error) {
    await db.drop();
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
    client: (accessToken) =>
      createClient(server.url, server.ctx.anonKey, {
        ...TEST_CLIENT_OPTIONS,
        ...(accessToken ? { global: { headers: { Authorization: `Bearer ${accessToken}` } } } : {}),
      }),
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
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<unknown>;
}

/** Where a server process keeps its state: its data directory, its database and its JWT secret. */
export interface ProcessState {
  dataDir: string;
  databaseUrl: string;
  jwtSecret: string;
}

/**
 * The server as a child process (for tests that kill it): `start()` spawns `src/main.ts` on `port` with the
 * state and `env` over the test's own environment (warnings and errors logged only), `healthy()` says whether
 * GET /health answers 200.
 */
export function serverProcess(state: ProcessState, env: Record<string, string>, port: number) {
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const own = { DATA_DIR: state.dataDir, DATABASE_URL: state.databaseUrl, JWT_SECRET: state.jwtSecret };
  return {
    start(): ServerProcess {
      const child = spawn(process.execPath, ['--import', 'tsx', main], {
        env: { ...process.env, LOG_LEVEL: 'warn', ...own, ...env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      return { child, exited: new Promise((r) => child.on('exit', r)) };
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
