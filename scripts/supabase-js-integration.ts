// `pnpm conformance:supabase-js`: the official supabase-js integration tests
// (packages/core/supabase-js/test/integration.test.ts of a supabase-js checkout) against this server. Starts the
// server in this process on a free port with an embedded PostgreSQL in a temp directory, the suite's JWT secret
// (its API key is signed with it) and REALTIME_PUBLIC_CHANNELS=anyone (its anon-key join), loads the suite's own
// migrations (supabase/migrations), runs the file with Vitest (Jest's globals mapped onto Vitest's, the
// hard-coded URL rewritten) and prints `N passed, N failed, N skipped`.
//
// SUPABASE_JS_DIR: the supabase-js monorepo checkout (`git clone https://github.com/supabase/supabase-js`, then
// `pnpm install --ignore-scripts` at its root so the suite's imports resolve, and `npm run build` in each package
// the client's sources import from their builds: packages/core/{auth,functions,postgrest,realtime,storage}-js and
// packages/shared/tracing). SUPABASE_JS_CLIENT=workspace tests this
// repository's @supabase/supabase-js build instead of the checkout's sources; the suite's other imports (ws,
// jsonwebtoken, @opentelemetry/*) must then be resolvable from packages/core/supabase-js (`npm install --no-save`),
// and the trace propagation tests fail (the build's tracing entry is left out: it needs OpenTelemetry beside it).
// Any variable of the server's configuration set in the environment overrides the defaults here.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVitest } from 'vitest/node';
import { loadConfig } from '../packages/server-config/src/index.js';
import { startServer } from '../apps/server/src/server.js';

const SUITE_URL = 'http://127.0.0.1:54321';
const SUITE_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const TEST_FILE = 'test/integration.test.ts';

const checkout = process.env.SUPABASE_JS_DIR;
const suiteDir = checkout && join(checkout, 'packages/core/supabase-js');
if (!suiteDir || !existsSync(join(suiteDir, TEST_FILE))) {
  console.error(
    'Set SUPABASE_JS_DIR to a supabase-js monorepo checkout: git clone https://github.com/supabase/supabase-js ' +
      '&& (cd supabase-js && pnpm install). Its packages/core/supabase-js/test/integration.test.ts is run.',
  );
  process.exit(1);
}

const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-supabase-js-'));
const server = await startServer(
  loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: SUITE_JWT_SECRET,
    REALTIME_PUBLIC_CHANNELS: 'anyone',
    WORKERS_ENABLED: 'false',
    RATE_LIMITS_ENABLED: 'false',
    AUTH_RATE_LIMIT_SIGN_UP: '10000',
    AUTH_RATE_LIMIT_SIGN_IN: '10000',
    ...(process.env as Record<string, string>),
  }),
);
let exitCode = 1;
try {
  // What Supabase's database image grants by default on what the project's migrations create in public.
  await server.ctx.ownerSql.unsafe(`
    alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
    alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
    alter default privileges in schema public grant execute on functions to anon, authenticated, service_role;`);
  const migrations = join(suiteDir, 'supabase/migrations');
  for (const file of readdirSync(migrations).sort()) {
    try {
      await server.ctx.ownerSql.unsafe(readFileSync(join(migrations, file), 'utf8'));
    } catch (error) {
      console.warn(`suite migration ${file} failed: ${(error as Error).message}`);
    }
  }
  // The tables and functions just made reach the data interface's schema cache, as with PostgREST.
  await server.ctx.ownerSql`select pg_notify('pgrst', 'reload schema')`;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const counts = await runSuite(suiteDir, server.url);
  console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  exitCode = 0;
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);

async function runSuite(root: string, base: string) {
  const fromServer = createRequire(join(import.meta.dirname, '../apps/server/package.json'));
  const alias =
    process.env.SUPABASE_JS_CLIENT === 'workspace'
      ? [
          { find: /^\.\.\/src\/index$/, replacement: fromServer.resolve('@supabase/supabase-js') },
          { find: /^\.\.\/src\/tracing$/, replacement: join(import.meta.dirname, 'support/supabase-js-no-tracing.ts') },
        ]
      : [];
  const vitest = await startVitest(
    'test',
    [],
    {
      root,
      config: false,
      watch: false,
      globals: true,
      include: [TEST_FILE],
      setupFiles: [
        join(import.meta.dirname, 'conformance-jest-globals.ts'),
        join(import.meta.dirname, 'support/supabase-js-websocket.ts'),
      ],
      testTimeout: 30_000,
      reporters: [process.env.CONFORMANCE_REPORTER ?? 'verbose'],
      pool: 'forks',
    },
    {
      plugins: [
        {
          name: 'supabase-js-url',
          enforce: 'pre',
          transform: (code: string, id: string) =>
            id.endsWith(TEST_FILE) ? { code: code.split(SUITE_URL).join(base), map: null } : null,
        },
      ],
      resolve: { alias },
    },
  );
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const mod of vitest.state.getTestModules()) {
    for (const t of mod.children.allTests()) {
      const state = t.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'failed') counts.failed++;
      else counts.skipped++;
    }
    if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) counts.failed++;
  }
  await vitest.close();
  return counts;
}
