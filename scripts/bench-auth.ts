import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTokenSigner, createTokenVerifier, hashPassword } from '../packages/auth-core/src/index.js';
import { percentile, startBenchServer } from './support/bench-server.js';
import { sized } from './support/bench-smoke.js';

// Smaller counts in the smoke run (`pnpm bench:smoke`).
const SIGN_INS = sized(200, 20);
const CONCURRENCY = 4;
const VERIFY_TOKENS = sized(2000, 100);
const CACHED_VERIFIES = sized(200_000, 2000);
/** MFA and OTP codes are good once (a TOTP step once per factor): one user per verification. */
const VERIFICATIONS = sized(100, 8);
/** The benchmarks measure the work, not the rate limits. */
const UNLIMITED = {
  WORKERS_ENABLED: 'false',
  AUTH_RATE_LIMIT_SIGN_IN: '1000000',
  AUTH_RATE_LIMIT_SIGN_UP: '1000000',
  AUTH_RATE_LIMIT_MFA_VERIFY: '1000000',
  AUTH_RATE_LIMIT_OTHER: '1000000',
};
const LOAD_CLIENT = fileURLToPath(new URL('./support/auth-load-client.ts', import.meta.url));
const run = promisify(execFile);

/** Runs the requests from the load process; requests per second. */
async function loadRate(dir: string, url: string, anonKey: string, label: string, requests: unknown[]) {
  const jobFile = join(dir, `auth-load-${label}.json`);
  writeFileSync(jobFile, JSON.stringify({ url, anonKey, concurrency: CONCURRENCY, requests }));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', LOAD_CLIENT, jobFile]);
  const { seconds, n } = JSON.parse(stdout) as { seconds: number; n: number };
  console.log(`  ${label}: ${n} in ${seconds.toFixed(2)} s, ${(n / seconds).toFixed(0)}/s`);
  return n / seconds;
}

/**
 * MFA verification (challenge + verify) and e-mail OTP verification per second against password sign-in, all
 * from a separate load process, so the ratios compare like with like on whatever the machine is doing.
 */
async function verificationRates(): Promise<void> {
  const bench = await startBenchServer('auth-verify', UNLIMITED);
  const { url, ctx } = bench.server;
  const call = async (path: string, body: unknown, token = ctx.serviceRoleKey) => {
    const res = await fetch(`${url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: ctx.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; access_token: string; email_otp: string; totp: { secret: string } };
  };
  try {
    const password = 'bench password 123';
    const newUser = (email: string) => call('/admin/users', { email, password, email_confirm: true });
    const signIns = [];
    for (let i = 0; i < CONCURRENCY; i++) await newUser(`pw${i}@example.com`);
    for (let i = 0; i < VERIFICATIONS; i++) {
      signIns.push({ kind: 'password', email: `pw${i % CONCURRENCY}@example.com`, password });
    }
    const mfa = [];
    const otp = [];
    for (let i = 0; i < VERIFICATIONS; i++) {
      await newUser(`mfa${i}@example.com`);
      const session = await call('/token?grant_type=password', { email: `mfa${i}@example.com`, password });
      const factor = await call('/factors', { factor_type: 'totp' }, session.access_token);
      mfa.push({ kind: 'mfa', accessToken: session.access_token, factorId: factor.id, secret: factor.totp.secret });
      await newUser(`otp${i}@example.com`);
      const link = await call('/admin/generate_link', { type: 'magiclink', email: `otp${i}@example.com` });
      otp.push({ kind: 'otp', email: `otp${i}@example.com`, token: link.email_otp });
    }
    console.log(`verifications per second (${CONCURRENCY} concurrent clients in a load process, n=${VERIFICATIONS}):`);
    const load = (label: string, requests: unknown[]) => loadRate(bench.dir, url, ctx.anonKey, label, requests);
    await load('warm-up (not counted)', signIns.slice(0, 20));
    const before = await load('password sign-in', signIns);
    const mfaRate = await load('MFA challenge + verify', mfa);
    const otpRate = await load('e-mail OTP verify', otp);
    const after = await load('password sign-in again', signIns);
    const signInRate = (before + after) / 2;
    console.log(
      `  ratios to password sign-in (mean of both runs, ${signInRate.toFixed(0)}/s): ` +
        `MFA ${(mfaRate / signInRate).toFixed(2)}x, OTP ${(otpRate / signInRate).toFixed(2)}x`,
    );
  } finally {
    await bench.stop();
  }
}

async function signInLatency(): Promise<void> {
  const bench = await startBenchServer('auth', UNLIMITED);
  const { server } = bench;
  const headers = { apikey: server.ctx.anonKey, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}/auth/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  try {
    const users = Array.from({ length: CONCURRENCY }, (_, i) => ({
      email: `bench${i}@example.com`,
      password: 'bench password 123',
    }));
    for (const u of users) if (!(await post('/signup', u)).ok) throw new Error('signup failed');
    for (let i = 0; i < 10; i++) await post('/token?grant_type=password', users[0]); // warm-up

    const sequential: number[] = [];
    for (let i = 0; i < SIGN_INS; i++) {
      const t0 = performance.now();
      const res = await post('/token?grant_type=password', users[0]);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`sign-in failed: ${res.status}`);
      sequential.push(performance.now() - t0);
    }
    sequential.sort((a, b) => a - b);
    console.log(
      `sign-in (POST /token?grant_type=password, sequential, n=${SIGN_INS}): ` +
        `p50 ${percentile(sequential, 50).toFixed(1)} ms, p99 ${percentile(sequential, 99).toFixed(1)} ms`,
    );

    const concurrent: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      users.map(async (u) => {
        for (let i = 0; i < SIGN_INS / CONCURRENCY; i++) {
          const s = performance.now();
          const res = await post('/token?grant_type=password', u);
          await res.arrayBuffer();
          concurrent.push(performance.now() - s);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    concurrent.sort((a, b) => a - b);
    console.log(
      `sign-in (${CONCURRENCY} concurrent clients, n=${SIGN_INS}): p50 ${percentile(concurrent, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(concurrent, 99).toFixed(1)} ms, ${(SIGN_INS / seconds).toFixed(0)} sign-ins/s`,
    );

    const hashes: number[] = [];
    for (let i = 0; i < sized(20, 3); i++) {
      const s = performance.now();
      await hashPassword('bench password 123');
      hashes.push(performance.now() - s);
    }
    hashes.sort((a, b) => a - b);
    console.log(`  of which argon2id (m=19 MiB, t=2, p=1) hash alone: p50 ${percentile(hashes, 50).toFixed(1)} ms`);

    const { access_token } = (await (await post('/token?grant_type=password', users[0])).json()) as {
      access_token: string;
    };
    const getUser: number[] = [];
    for (let i = 0; i < sized(500, 20); i++) {
      const s = performance.now();
      const res = await fetch(`${server.url}/auth/v1/user`, {
        headers: { apikey: server.ctx.anonKey, authorization: `Bearer ${access_token}` },
      });
      await res.arrayBuffer();
      getUser.push(performance.now() - s);
    }
    getUser.sort((a, b) => a - b);
    console.log(
      'GET /user (token verified by the gateway, user read): ' +
        `p50 ${percentile(getUser, 50).toFixed(2)} ms, p99 ${percentile(getUser, 99).toFixed(2)} ms`,
    );
  } finally {
    await bench.stop();
  }
}

async function verificationCost(label: string, signer: Awaited<ReturnType<typeof createTokenSigner>>): Promise<void> {
  const secret = 'bench-secret-'.padEnd(40, 'x');
  const now = Math.floor(Date.now() / 1000);
  const tokens = await Promise.all(
    Array.from({ length: VERIFY_TOKENS }, (_, i) =>
      signer.sign({
        sub: crypto.randomUUID(),
        role: 'authenticated',
        aud: 'authenticated',
        iat: now,
        exp: now + 3600,
        session_id: String(i),
        email: `u${i}@example.com`,
        app_metadata: { provider: 'email', providers: ['email'] },
        user_metadata: {},
      }),
    ),
  );
  const verifier = createTokenVerifier(secret);
  if (signer.kid && signer.publicKey) verifier.trustPublicKey(signer.kid, signer.publicKey);
  // Uncached: every token seen for the first time (a signature check each).
  let t0 = performance.now();
  for (const token of tokens) await verifier.verify(token);
  const uncached = ((performance.now() - t0) * 1000) / tokens.length;
  // Cached: the same tokens again, as repeated requests of the same sessions.
  t0 = performance.now();
  for (let i = 0; i < CACHED_VERIFIES; i++) await verifier.verify(tokens[i % tokens.length]);
  const cached = ((performance.now() - t0) * 1000) / CACHED_VERIFIES;
  console.log(
    `token verification ${label}: uncached ${uncached.toFixed(1)} µs/request, cached ${cached.toFixed(2)} µs/request ` +
      `(${(uncached / cached).toFixed(0)}x)`,
  );
}

export async function main(): Promise<void> {
  const secret = 'bench-secret-'.padEnd(40, 'x');
  await verificationCost('HS256', await createTokenSigner({ secret }));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await verificationCost('ES256', await createTokenSigner({ secret, es256PrivateKey: pem }));
  await signInLatency();
  await verificationRates();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
