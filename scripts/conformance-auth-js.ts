// `pnpm conformance:auth-js`: the official auth-js tests that talk to a server (supabase/supabase-js,
// packages/core/auth-js/test), run from an upstream checkout against our /auth/v1 in each configuration the suite
// expects: the Supabase CLI stack of test/supabase/config.toml for the main files, and the four GoTrue containers of
// infra/docker-compose.yml for test/docker-tests. docs/auth.md ("The auth-js suite") maps their settings to ours.
// Prints `N passed, N failed` per configuration and in total; exit code 0 when the run completed, 1 when it could
// not run or, with CONFORMANCE_MAX_FAILURES=N, when more than N tests failed in all. To re-run a few failures:
// CONFORMANCE_TEST_FILTER=<regular expression> runs only the tests whose full name matches (Vitest's `-t`), and
// CONFORMANCE_CONFIGURATIONS=cli (or docker) only that part.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type BenchServer, startBenchServer } from './support/bench-server.js';
import { type Counts, runVitest } from './conformance-vitest.js';
import { supabaseJsClientDir } from './conformance-upstream.js';

const require = createRequire(import.meta.url);
// The CLI's default JWT secret (config.toml's jwt_secret) and the docker containers' ones.
const CLI_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const DOCKER_JWT_SECRET = '37c304f8-51aa-419a-a1af-06154e63707a';
const ASYMMETRIC_JWT_SECRET = 'Z7-AyPyChGNcQsX16cPBV-pPBo4q-zckDxkq1VZjATo';
// The main files whose tests reach the CLI stack (the others test the client against fetch stubs or a browser).
const CLI_FILES = ['GoTrueApi', 'GoTrueClient', 'passkey.e2e'];
const CLI_URL = 'http://127.0.0.1:54321';
// The docker tests, each with the container it talks to.
const DOCKER_FILES: Record<string, string> = {
  'anonymous-disabled': 'autoconfirm off',
  'asymmetric-jwt': 'asymmetric keys',
  'phone-otp': 'autoconfirm off and on',
  'signup-disabled': 'signup off',
};

// Settings every configuration shares: the suite signs up hundreds of users from one address within minutes.
const COMMON: Record<string, string> = {
  RATE_LIMITS_ENABLED: 'false',
  PENDING_CHECK_ENABLED: 'false',
  AUTH_RATE_LIMIT_SIGN_IN: '100000',
  AUTH_RATE_LIMIT_SIGN_UP: '100000',
  AUTH_RATE_LIMIT_RECOVER: '100000',
  AUTH_RATE_LIMIT_ANONYMOUS: '100000',
  AUTH_RATE_LIMIT_OTHER: '100000',
  AUTH_RATE_LIMIT_MFA_VERIFY: '100000',
  AUTH_RATE_LIMIT_SMS_SENT: '100000',
};

/** GoTrue's settings of one docker container, in ours (docs/auth.md lists the mapping). */
export function dockerConfigurations(rs256Keys: string): Record<string, { url: string; env: Record<string, string> }> {
  const docker = { JWT_SECRET: DOCKER_JWT_SECRET, AUTH_REQUIRE_APIKEY: 'false', AUTH_MIN_PASSWORD_LENGTH: '6' };
  // GOTRUE_EXTERNAL_PHONE_ENABLED with GOTRUE_SMS_AUTOCONFIRM; the Twilio credentials the compose file reads from
  // the environment are empty in the suite's runs, so every send fails: ours without AUTH_SMS_PROVIDER does too.
  const phone = (autoconfirm: boolean) => ({
    AUTH_EXTERNAL_PHONE_ENABLED: 'true',
    AUTH_SMS_AUTOCONFIRM: String(autoconfirm),
  });
  return {
    'signup on, autoconfirm off': {
      url: 'http://localhost:9999',
      env: {
        ...docker,
        ...phone(false),
        AUTH_AUTOCONFIRM: 'false',
        AUTH_REDIRECT_ALLOW_LIST: 'https://supabase.io/docs',
      },
    },
    'signup on, autoconfirm on': {
      url: 'http://localhost:9998',
      env: { ...docker, ...phone(true), AUTH_AUTOCONFIRM: 'true', AUTH_ANONYMOUS_SIGN_INS: 'true' },
    },
    'signup off': {
      url: 'http://localhost:9997',
      env: { ...docker, AUTH_AUTOCONFIRM: 'false', AUTH_DISABLE_SIGNUP: 'true' },
    },
    'asymmetric keys, autoconfirm on': {
      url: 'http://localhost:9996',
      env: {
        ...docker,
        ...phone(true),
        JWT_SECRET: ASYMMETRIC_JWT_SECRET,
        AUTH_AUTOCONFIRM: 'true',
        AUTH_JWT_KEYS: rs256Keys,
      },
    },
  };
}

const suiteDir = () =>
  supabaseJsClientDir('AUTH_JS_DIR', 'auth-js', 'test/supabase/config.toml', 'conformance:auth-js');

/** The CLI stack signs its keys with test/supabase/signing_keys.json, which the suite's own script makes. */
function signingKeys(dir: string): string {
  const path = join(dir, 'test', 'supabase', 'signing_keys.json');
  if (!existsSync(path)) execFileSync(process.execPath, [join(dir, 'test', 'generate-signing-keys.js')]);
  return readFileSync(path, 'utf8');
}

/**
 * Three MFA tests read the test helpers with Jest's `require` of a TypeScript file, which Node's require cannot
 * resolve under Vitest; inside their async test functions a dynamic import reads the same module.
 */
const REQUIRE_HELPERS = { "require('./lib/clients')": "(await import('./lib/clients'))" };

/** The test helpers' packages, resolved from this repository (the checkout need not have its own installed). */
const ALIAS = {
  jsonwebtoken: require.resolve('jsonwebtoken'),
  '@faker-js/faker': require.resolve('@faker-js/faker'),
};

async function run(dir: string, files: string[], rewrites: Record<string, string>): Promise<Counts> {
  return runVitest(dir, [], '', 29, {
    include: files,
    testDir: `${dir}/test/`,
    alias: ALIAS,
    rewrites: { ...rewrites, ...REQUIRE_HELPERS },
    // Jest's module mocks have no Vitest equivalent under the Jest names: a failure of the harness, not the server.
    harnessFailure: (m) => m.includes('jest.mock') || m.includes("reading 'mockRestore'"),
    testNamePattern: process.env.CONFORMANCE_TEST_FILTER,
  });
}

function line(name: string, c: Counts): string {
  return `${name}: ${c.passed} passed, ${c.failed} failed${c.harness ? ` (${c.harness} not runnable under Vitest)` : ''}`;
}

export async function main(): Promise<number> {
  const dir = suiteDir();
  const only = process.env.CONFORMANCE_CONFIGURATIONS;
  const results: [string, Counts][] = [];
  if (only !== 'docker') results.push(['CLI stack', await runCli(dir)]);
  if (only !== 'cli') results.push(...(await runDocker(dir)));
  console.log('\nconformance auth-js:');
  for (const [name, c] of results) console.log(line(name, c));
  const failed = results.reduce((n, [, c]) => n + c.failed, 0);
  const passed = results.reduce((n, [, c]) => n + c.passed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  const max = process.env.CONFORMANCE_MAX_FAILURES;
  return max !== undefined && failed > Number(max) ? 1 : 0;
}

/** The CLI stack of test/supabase/config.toml, for the main files. */
async function runCli(dir: string): Promise<Counts> {
  const cli = await startBenchServer('auth-js-cli', {
    ...COMMON,
    JWT_SECRET: CLI_JWT_SECRET,
    AUTH_JWT_KEYS: signingKeys(dir),
    AUTH_AUTOCONFIRM: 'true',
    AUTH_ANONYMOUS_SIGN_INS: 'true',
    // GoTrue's answer to signInWithOtp({shouldCreateUser: false}) for an unknown address (ours hides it by default).
    AUTH_OTP_REVEAL_UNKNOWN_ADDRESSES: 'true',
    AUTH_MIN_PASSWORD_LENGTH: '6',
    // [auth.oauth_server] enabled = true, authorization_url_path = "/oauth/consent".
    AUTH_OAUTH_SERVER_ENABLED: 'true',
    AUTH_REDIRECT_ALLOW_LIST: 'http://127.0.0.1:3000,https://127.0.0.1:3000,http://localhost:5173',
    // [auth.sms]: signups on, confirmations off, max_frequency 1s, test_otp; no provider; [auth.mfa.phone] on.
    AUTH_EXTERNAL_PHONE_ENABLED: 'true',
    AUTH_SMS_AUTOCONFIRM: 'true',
    AUTH_SMS_MAX_FREQUENCY: '1s',
    AUTH_SMS_TEST_OTP: '1234567890:123456',
    AUTH_MFA_PHONE_ENABLED: 'true',
    AUTH_MFA_PHONE_MAX_FREQUENCY: '1s',
    // [auth.passkey], [auth.mfa.web_authn] and [auth.webauthn] of config.toml.
    AUTH_PASSKEYS_ENABLED: 'true',
    AUTH_MFA_WEBAUTHN_ENROLL_ENABLED: 'true',
    AUTH_MFA_WEBAUTHN_VERIFY_ENABLED: 'true',
    AUTH_WEBAUTHN_RP_ID: 'localhost',
    AUTH_WEBAUTHN_RP_ORIGINS: 'http://localhost:5173',
    AUTH_WEBAUTHN_RP_DISPLAY_NAME: 'auth-js tests',
  });
  try {
    console.log(`conformance auth-js: CLI stack at ${cli.server.url}, suite at ${dir}`);
    const files = CLI_FILES.map((f) => `test/${f}.test.ts`);
    return await run(dir, files, { [CLI_URL]: cli.server.url });
  } finally {
    await cli.stop();
  }
}

async function runDocker(dir: string): Promise<[string, Counts][]> {
  const results: [string, Counts][] = [];
  // GOTRUE_JWT_KEYS of the asymmetric container: an RS256 key that signs (its HS256 verify-only key is JWT_SECRET).
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const rs256 = JSON.stringify([{ ...rsa, kid: randomUUID(), alg: 'RS256', key_ops: ['sign', 'verify'] }]);
  const servers: BenchServer[] = [];
  try {
    const rewrites: Record<string, string> = {};
    for (const [name, c] of Object.entries(dockerConfigurations(rs256))) {
      const server = await startBenchServer(`auth-js-${c.url.slice(-4)}`, { ...COMMON, ...c.env });
      servers.push(server);
      rewrites[c.url] = `${server.server.url}/auth/v1`;
      console.log(`conformance auth-js: ${name} at ${server.server.url}`);
    }
    // One run per file, so that each configuration's count stands apart (phone-otp uses two containers).
    for (const [file, name] of Object.entries(DOCKER_FILES)) {
      results.push([`${name} (${file})`, await run(dir, [`test/docker-tests/${file}.test.ts`], rewrites)]);
    }
  } finally {
    for (const s of servers) await s.stop();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await main().catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}
