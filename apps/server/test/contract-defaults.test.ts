// The contract's limits (section 8) at their default values, on a server configured with nothing but the test
// defaults, and the data interface's error codes (section 7.2) as supabase-js sees them. Limits of other files are
// lowered or raised for speed; these are not.
import { request as httpRequest } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFunction } from './functions-notify.fixture.js';
import { awaitWindowRoom } from './support/rate-windows.js';
import { startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ WEBHOOK_DISPATCHER_ENABLED: 'false' });
});
afterAll(async () => {
  await t?.stop();
});

const HOUR = 3_600_000;

async function auth(path: string, body: unknown): Promise<{ status: number; limit: string | null; json: any }> {
  const res = await fetch(`${t.url}/auth/v1${path}`, {
    method: 'POST',
    headers: { apikey: t.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, limit: res.headers.get('x-ratelimit-limit'), json: await res.json() };
}

/** Sends `send(i)` until one answers 429; returns how many were let through and the refusal. */
async function untilRefused(send: (i: number) => ReturnType<typeof auth>, max: number) {
  for (let i = 0; i <= max; i++) {
    const answer = await send(i);
    if (answer.status === 429) return { allowed: i, refusal: answer };
    expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(400);
  }
  throw new Error(`no 429 within ${max + 1} requests`);
}

describe('auth limits at their defaults (per hour)', () => {
  let refreshToken: string;

  beforeAll(async () => {
    // Fixed windows aligned to the hour: leave room so the counts below cannot start over mid-way.
    await awaitWindowRoom(HOUR, 60_000);
  });

  it('sign-up: 5 per IP', async () => {
    const { allowed, refusal } = await untilRefused(
      (i) => auth('/signup', { email: `limits${i}@contract.test`, password: TEST_PASSWORD }),
      10,
    );
    expect(allowed).toBe(5);
    expect(refusal).toMatchObject({
      status: 429,
      limit: '5',
      json: { error: 'rate_limit_exceeded', error_code: 'rate_limit_exceeded' },
    });
  });

  it('sign-in: 30 per IP', async () => {
    const signIn = () =>
      auth('/token?grant_type=password', { email: 'limits0@contract.test', password: TEST_PASSWORD });
    const first = await signIn();
    refreshToken = first.json.refresh_token;
    const { allowed, refusal } = await untilRefused(signIn, 40);
    expect(allowed + 1).toBe(30);
    expect(refusal).toMatchObject({ status: 429, limit: '30' });
  });

  it('password reset: 5 per e-mail address', async () => {
    const { allowed, refusal } = await untilRefused(() => auth('/recover', { email: 'limits1@contract.test' }), 10);
    expect(allowed).toBe(5);
    expect(refusal).toMatchObject({ status: 429, limit: '5' });
    expect((await auth('/recover', { email: 'limits2@contract.test' })).status).toBe(200);
  });

  it('token refresh: 60 per user', async () => {
    const { allowed, refusal } = await untilRefused(async () => {
      const answer = await auth('/token?grant_type=refresh_token', { refresh_token: refreshToken });
      if (answer.status === 200) refreshToken = answer.json.refresh_token;
      return answer;
    }, 70);
    expect(allowed).toBe(60);
    expect(refusal).toMatchObject({ status: 429, limit: '60' });
  });
});

describe('function limits at their defaults (per user)', () => {
  const NO_DATASET = '00000000-0000-4000-8000-000000000000';

  /** A user made through the admin API, with an access token signed for it: sign-ups here count against 5/hour. */
  async function user(email: string): Promise<string> {
    const created = await t.client(t.serviceRoleKey).auth.admin.createUser({ email, email_confirm: true });
    return new SignJWT({ role: 'authenticated', sub: created.data.user!.id, email })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(`${t.url}/auth/v1`)
      .setAudience('authenticated')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(t.jwtSecret));
  }

  async function refusedAfter(name: string, body: unknown, windowMs: number, max: number, token: string) {
    await awaitWindowRoom(windowMs);
    for (let i = 0; i <= max; i++) {
      const r = await callFunction(t.url, t.anonKey, name, { bearer: token, body });
      if (r.status === 429) return { allowed: i, refusal: r };
    }
    throw new Error(`${name}: no 429 within ${max + 1} requests`);
  }

  it('generate-sql: 30 a minute', async () => {
    const body = { dataset_id: NO_DATASET, natural_language_query: 'how many?' };
    const token = await user('gen-limit@contract.test');
    const { allowed, refusal } = await refusedAfter('generate-sql', body, 60_000, 40, token);
    expect(allowed).toBe(30);
    expect(refusal.body).toMatchObject({
      code: 'RATE_LIMITED',
      error: 'at most 30 requests per minute for generate-sql',
    });
  });

  it('import-csv: 5 an hour', async () => {
    const body = { auction_id: NO_DATASET, name: 'cars', csv: 'make\nFord\n' };
    const token = await user('import-limit@contract.test');
    const { allowed, refusal } = await refusedAfter('import-csv', body, HOUR, 10, token);
    expect(allowed).toBe(5);
    expect(refusal.body).toMatchObject({ code: 'RATE_LIMITED', error: 'at most 5 requests per hour for import-csv' });
  });
});

describe('import-csv file size at its default (50 MB)', () => {
  it('refuses a declared 51 MB upload with 413 VALIDATION_ERROR before reading it', async () => {
    const created = await t.client(t.serviceRoleKey).auth.admin.createUser({
      email: 'import-size@contract.test',
      email_confirm: true,
    });
    const token = await new SignJWT({ role: 'authenticated', sub: created.data.user!.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('authenticated')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(t.jwtSecret));
    const boundary = 'contract-boundary';
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.csv"\r\n\r\nmake\n`;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(new URL('/functions/v1/import-csv', t.url), {
        method: 'POST',
        headers: {
          apikey: t.anonKey,
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(51 * 1024 * 1024),
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode!, body });
          req.destroy();
        });
      });
      // Only the first bytes: the answer must come from the declared size, not from reading 51 MB.
      req.write(head);
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'VALIDATION_ERROR', error: 'the file is larger than 50 MB' });
  });
});

describe('data interface error codes (section 7.2)', () => {
  const service = () => t.client(t.serviceRoleKey);

  it('PGRST100: a query string that does not parse', async () => {
    const r = await service().from('auctions').select('id').filter('name', 'nope', 'x');
    expect(r).toMatchObject({ status: 400, error: { code: 'PGRST100' } });
  });

  it('PGRST116: one row asked for, none found', async () => {
    const r = await service().from('auctions').select('id').eq('slug', 'no-such-auction').single();
    expect(r).toMatchObject({ status: 406, error: { code: 'PGRST116', details: 'The result contains 0 rows' } });
  });

  it('PGRST200: an embed with no relationship', async () => {
    const r = await service().from('auctions').select('id, webhook_delivery_attempts_of_nothing(*)');
    expect(r).toMatchObject({ status: 400, error: { code: 'PGRST200' } });
  });

  it('PGRST301: an expired access token, 401 naming the expiry', async () => {
    const expired = await new SignJWT({ role: 'authenticated', sub: '00000000-0000-4000-8000-000000000001' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(t.jwtSecret));
    const r = await t.client(expired).from('auctions').select('id');
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ code: 'PGRST301' });
    expect(r.error!.message).toMatch(/expired/i);
  });

  it('42501: a write the caller may not make', async () => {
    const r = await t.client().from('auctions').insert({ name: 'Nope', slug: 'nope-auction' });
    expect(r).toMatchObject({ status: 401, error: { code: '42501' } });
  });

  it('23505 and 23503: a duplicate key and a missing referenced row, 409', async () => {
    const first = await service().from('auctions').insert({ name: 'Dup', slug: 'dup-auction' });
    expect(first.error).toBeNull();
    const again = await service().from('auctions').insert({ name: 'Dup again', slug: 'dup-auction' });
    expect(again).toMatchObject({ status: 409, error: { code: '23505' } });
    const orphan = await service()
      .from('locations')
      .insert({ auction_id: '00000000-0000-4000-8000-000000000002', name: 'Nowhere' });
    expect(orphan).toMatchObject({ status: 409, error: { code: '23503' } });
  });
});
