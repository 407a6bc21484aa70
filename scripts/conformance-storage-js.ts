// `pnpm conformance:storage-js`: the official storage-js tests that talk to a server (supabase/supabase-js,
// packages/core/storage-js/test), run from an upstream checkout against our /storage/v1. The server runs on a fresh
// embedded PostgreSQL in the Supabase CLI stack's configuration (the suite's test/supabase/config.toml: its JWT
// secret, a 50 MiB file limit) with the suite's seed (test/supabase/seed.sql: buckets, objects, policies) loaded
// into our schema. Prints `N passed, N failed`; exit code 0 when the run completed, 1 when it could not run or,
// with CONFORMANCE_MAX_FAILURES=N, when more than N tests failed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchServer } from './support/bench-server.js';
import { runVitest } from './conformance-vitest.js';
import { supabaseJsClientDir } from './conformance-upstream.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// The Supabase CLI's default JWT secret: the suite's hard-coded service-role key is signed with it.
const CLI_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
// The files whose tests reach a server (the others test the client against fetch stubs).
const SERVER_FILES = ['storageApi', 'storageBucketApi', 'storageFileApi', 'storageFileApiNode'];
const SUITE_USERS = [
  ['317eadce-631a-4429-a0bb-f19a7a517b4a', 'test-user1@supabase.io'],
  ['4d56e902-f0a0-4662-8448-a4d9e643c142', 'test-user2@supabase.io'],
  ['d8c7bce9-cfeb-497b-bd61-e66ce2cbdaa2', 'test-admin@supabase.io'],
] as const;

const suiteDir = () =>
  supabaseJsClientDir('STORAGE_JS_DIR', 'storage-js', 'test/supabase/seed.sql', 'conformance:storage-js');

/**
 * The seed's statements for storage, translated to our schema: objects and buckets name their owner `owner_id`
 * (a uuid, so the one policy comparing it to text compares text), and an object row names its bytes' version
 * (the seeded rows have no bytes, as in the suite). Its auth.users rows are made by seedUsers instead.
 */
export function translateSeed(seed: string): string[] {
  return seed
    .replace(/--[^\n]*/g, '')
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !/^insert into auth\./i.test(s))
    .map((s) =>
      s
        .replace(/\(id, name, owner,/i, '(id, name, owner_id,')
        .replace(/\(id, bucket_id, name, owner,(.*)metadata\)/i, '(id, bucket_id, name, owner_id,$1metadata, version)')
        .replace(/'(\{[^']*\})'\)/g, "'$1', gen_random_uuid()::text)")
        .replace(/owner_id = auth\.uid\(\)::text/g, 'owner_id::text = auth.uid()::text'),
    );
}

/** A Jest snapshot key (`describe test N`) as Vitest names it (`describe > test N`), by the file's describe names. */
function vitestKey(key: string, describes: readonly string[]): string {
  const parts: string[] = [];
  let rest = key;
  for (
    let d = describes.find((n) => rest.startsWith(`${n} `));
    d;
    d = describes.find((n) => rest.startsWith(`${n} `))
  ) {
    parts.push(d);
    rest = rest.slice(d.length + 1);
  }
  return [...parts, rest].join(' > ');
}

/**
 * The suite's Jest snapshot files, translated for Vitest into `into` (the checkout is left as it is): Vitest
 * joins describe and test names with ` > ` where Jest uses a space, so it would find none of them.
 */
function translateSnapshots(dir: string, into: string): void {
  const snapshots = join(dir, 'test', '__snapshots__');
  if (!existsSync(snapshots)) return;
  for (const file of readdirSync(snapshots).filter((f) => f.endsWith('.snap'))) {
    const source = readFileSync(join(dir, 'test', file.replace(/\.snap$/, '')), 'utf8');
    const describes = [...source.matchAll(/describe\(\s*['"`]([^'"`]+)['"`]/g)].map((m) => m[1]!);
    const text = readFileSync(join(snapshots, file), 'utf8')
      .replace(/^\/\/ Jest Snapshot v1.*$/m, '// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html')
      .replace(/^exports\[`(.*)`\]/gm, (_, key: string) => `exports[\`${vitestKey(key, describes)}\`]`);
    writeFileSync(join(into, file), text);
  }
}

/** iceberg-js, which storage-js's sources import, from the storage-js our own supabase-js depends on. */
function icebergAlias(): Record<string, string> {
  const server = createRequire(join(HERE, '../apps/server/package.json'));
  const supabase = createRequire(server.resolve('@supabase/supabase-js'));
  const storage = createRequire(supabase.resolve('@supabase/storage-js'));
  return { 'iceberg-js': storage.resolve('iceberg-js') };
}

export async function main(): Promise<number> {
  const dir = suiteDir();
  const snapshots = mkdtempSync(join(tmpdir(), 'storage-js-snapshots-'));
  const bench = await startBenchServer('storage-js', {
    JWT_SECRET: CLI_JWT_SECRET,
    STORAGE_FILE_SIZE_LIMIT: String(50 * 1024 * 1024),
    RATE_LIMITS_ENABLED: 'false',
    PENDING_CHECK_ENABLED: 'false',
  });
  try {
    const sql = bench.server.ctx.ownerSql;
    for (const [id, email] of SUITE_USERS) {
      await sql`insert into auth.users (id, email, email_confirmed_at) values (${id}, ${email}, now())`;
    }
    for (const statement of translateSeed(readFileSync(join(dir, 'test/supabase/seed.sql'), 'utf8'))) {
      await sql.unsafe(statement);
    }
    translateSnapshots(dir, snapshots);
    const base = bench.server.url;
    console.log(`conformance storage-js: server at ${base}, suite at ${dir}`);
    const { passed, failed, harness } = await runVitest(dir, ['http://127.0.0.1:54321'], base, 29, {
      include: SERVER_FILES.map((f) => `test/${f}.test.ts`),
      testDir: `${dir}/test/`,
      alias: icebergAlias(),
      resolveSnapshotPath: (testPath, extension) => join(snapshots, `${basename(testPath)}${extension}`),
      // Jest's require() of the client's TypeScript modules, to stub its fetch helpers: the server is never asked.
      harnessFailure: (m) => m.includes("Cannot find module '../src/") || m.includes("reading 'mockRestore'"),
    });
    console.log('\nconformance storage-js:');
    console.log(`${passed} passed, ${failed} failed (${harness} Jest-only client tests not run)`);
    const max = process.env.CONFORMANCE_MAX_FAILURES;
    return max !== undefined && failed > Number(max) ? 1 : 0;
  } finally {
    await bench.stop();
    rmSync(snapshots, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await main().catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}
