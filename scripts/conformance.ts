// `pnpm conformance [postgrest-js|postgrest-js-standalone] [checkout]`: the official postgrest-js test suites, read
// from a checkout of the upstream repository at a pinned commit (see conformance-upstream.ts), run against
// rest-engine instead of PostgREST. `pnpm conformance postgrest [checkout]` runs PostgREST's own suite instead
// (conformance-postgrest.ts).
// Loads the suite's fixtures into a fresh PostgreSQL 15 with PostGIS, serves rest-engine with the suite's PostgREST
// configuration, runs the suite's tests with Vitest (the Jest globals mapped onto Vitest's) one file at a time in
// name order, as the suite's Jest configuration does, and prints `N passed, N failed`. Exit code 0 when the run
// completed (failures are counted, not fatal: the known ones are listed in the conformance README), 1 when it
// could not run or, with CONFORMANCE_MAX_FAILURES=N, when more than N tests failed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createJwtAuthenticator,
  createNodeHandler,
  createRestEngine,
  type RestEngine,
  type RestEngineOptions,
} from '../packages/rest-engine/src/index.js';
import { startPostgis } from './conformance-postgres.js';
import { runVitest } from './conformance-vitest.js';
import { howToGet, stageUpstream, type Upstream } from './conformance-upstream.js';
import { loadPostgres } from './support/postgres-client.js';

const HERE = dirname(fileURLToPath(import.meta.url));
type Sql = RestEngineOptions['sql'];
const CONFORMANCE = join(HERE, '../packages/rest-engine/conformance');

interface Suite {
  /** Where the client's src/ and test/ come from. */
  readonly upstream: Upstream;
  /** SQL run as the superuser before the fixtures (roles and schemas the suite's database image provides). */
  readonly prelude: string | null;
  readonly fixtures: readonly string[];
  /** Base URLs the tests hard-code, replaced by the engine's address ({base} and /rest/v1 kept as written). */
  readonly urls: readonly string[];
  /** The PostgREST configuration of the suite. */
  readonly engine: Omit<RestEngineOptions, 'sql'>;
  /** Connect as this role (the suite's db-uri user). */
  readonly user: 'authenticator' | 'postgres';
  /** The Jest major version of the suite (its inline snapshots' format). */
  readonly jest: 28 | 29;
}

// The Supabase CLI's default JWT secret (the suite runs against `supabase start`).
const JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

const SUITES: Record<string, Suite> = {
  // supabase/supabase-js packages/core/postgrest-js/test, served like the Supabase CLI (test/supabase/config.toml):
  // schemas public, personal, graphql_public; extra search path public, extensions; max rows 1000; aggregates,
  // plans and tx=rollback enabled by the fixture's `alter role authenticator set pgrst.*`.
  'postgrest-js': {
    upstream: {
      env: 'POSTGREST_JS_SOURCE',
      repo: 'supabase/supabase-js',
      commit: '381bded5ced48c4621830576bf8cbecc34edc85c',
      subdir: 'packages/core/postgrest-js',
    },
    prelude: join(CONFORMANCE, 'supabase-roles.sql'),
    fixtures: ['test/supabase/migrations/00000000000000_schema.sql', 'test/supabase/seed.sql'],
    urls: ['http://localhost:54321'],
    engine: {
      schemas: ['public', 'personal', 'graphql_public'],
      extraSearchPath: ['public', 'extensions'],
      anonRole: 'anon',
      maxRows: 1000,
      aggregatesEnabled: true,
      txRollbackAllowed: true,
      planEnabled: true,
    },
    user: 'authenticator',
    jest: 29,
  },
  // supabase/postgrest-js test/, with test/db/docker-compose.yml's PostgREST 13 settings: schemas public, personal;
  // extra search path extensions; anonymous role postgres; aggregates, plans and tx=rollback enabled.
  'postgrest-js-standalone': {
    upstream: {
      env: 'POSTGREST_JS_STANDALONE_SOURCE',
      repo: 'supabase/postgrest-js',
      commit: '63c5d9a61a403c8b9b1af683fb259ff84a98ed39',
      subdir: '',
    },
    prelude: null,
    fixtures: ['test/db/00-schema.sql', 'test/db/01-dummy-data.sql'],
    urls: ['http://localhost:3000', 'http://localhost:3001'],
    engine: {
      schemas: ['public', 'personal'],
      extraSearchPath: ['extensions'],
      anonRole: 'postgres',
      roles: ['postgres'],
      maxRows: undefined,
      aggregatesEnabled: true,
      txRollbackAllowed: true,
      planEnabled: true,
    },
    user: 'postgres',
    jest: 28,
  },
};

/**
 * The engine through the package's own node:http adapter and JWT authenticator, mounted at /rest/v1 and at the root
 * (the standalone suite talks to PostgREST there).
 */
function serve(engine: RestEngine, anonRole: string): Promise<Server> {
  const authenticate = createJwtAuthenticator({ secret: JWT_SECRET, anonRole });
  const root = createNodeHandler(engine, { authenticate });
  const mounted = createNodeHandler(engine, { basePath: '/rest/v1', authenticate });
  const server = createServer((req, res) => void mounted(req, res, () => void root(req, res)));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function main(name = process.argv[2] ?? 'postgrest-js', given = process.argv[3]): Promise<number> {
  // PostgREST's own suite is Haskell, translated and run by a runner of its own.
  if (name === 'postgrest') return (await import('./conformance-postgrest.js')).main(given);
  const suite = SUITES[name];
  if (!suite) {
    console.error(`unknown suite "${name}"; choose from ${[...Object.keys(SUITES), 'postgrest'].join(', ')}`);
    return 2;
  }
  const checkout = given ?? process.env[suite.upstream.env];
  if (!checkout) {
    console.error(howToGet(suite.upstream, name));
    return 2;
  }
  const root = stageUpstream(suite.upstream, checkout, join(HERE, '../.tmp/conformance', name));
  const cluster = await startPostgis();
  let sql: Sql | null = null;
  let engine: RestEngine | null = null;
  let server: Server | null = null;
  try {
    if (suite.prelude) cluster.psql(suite.prelude);
    for (const f of suite.fixtures) cluster.psql(join(root, f));
    const url =
      suite.user === 'postgres'
        ? cluster.url
        : cluster.url.replace('postgres:conformance@', 'authenticator:conformance@');
    const postgres = await loadPostgres<Sql>();
    sql = postgres(url, { max: 10, onnotice: () => {} });
    engine = await createRestEngine({ sql, ...suite.engine, listen: false });
    server = await serve(engine, suite.engine.anonRole ?? 'anon');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    console.log(`conformance ${name}: rest-engine at ${base}, PostgreSQL 15 + PostGIS on port ${cluster.port}`);
    const { passed, failed } = await runVitest(root, suite.urls, base, suite.jest);
    console.log(`\nconformance ${name}:`);
    console.log(`${passed} passed, ${failed} failed`);
    // CI gate: more failures than the known, documented ones fail the run.
    const max = process.env.CONFORMANCE_MAX_FAILURES;
    return max !== undefined && failed > Number(max) ? 1 : 0;
  } finally {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    await engine?.close();
    await sql?.end({ timeout: 1 });
    cluster.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
