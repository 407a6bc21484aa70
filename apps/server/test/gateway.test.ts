import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type TestServer } from './support/test-server.js';
import type { RunningServer } from '../src/index.js';

interface Seen {
  role: string;
  claims: Record<string, unknown>;
  headers: Record<string, string>;
}

const SECRET = 'gateway-secret-'.padEnd(40, 'g');
let t: TestServer;
let db: TestDatabase;
let server: RunningServer;

const sign = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

beforeAll(async () => {
  t = await startTestServer(
    { JWT_SECRET: SECRET, WORKERS_ENABLED: 'false' },
    {
      // Created before the server starts, so the schema cache sees it.
      beforeStart: ({ db }) =>
        db.sql
          .unsafe(`create function public.echo_request() returns json language sql stable as $$
    select json_build_object('headers', current_setting('request.headers', true)::json,
                             'claims', current_setting('request.jwt.claims', true)::json, 'role', current_user) $$;
    grant execute on function public.echo_request() to anon, authenticated`)
          .then(() => {}),
    },
  );
  ({ db, server } = t);
});
afterAll(async () => {
  await t?.stop();
});

describe('CORS', () => {
  it('answers a preflight with the headers supabase-js sends', async () => {
    const res = await fetch(`${server.url}/rest/v1/auctions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'apikey, authorization, x-client-info',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    const allowed = res.headers.get('access-control-allow-headers')!.split(',');
    const required = 'apikey authorization content-type x-client-info x-supabase-api-version prefer range';
    expect(allowed).toEqual(expect.arrayContaining(required.split(' ')));
  });

  it('exposes the headers clients read, on success and on error responses', async () => {
    const variants: Record<string, string>[] = [
      { origin: 'https://app.example.com', apikey: server.ctx.anonKey },
      { origin: 'https://app.example.com' },
    ];
    for (const headers of variants) {
      const res = await fetch(`${server.url}/rest/v1/`, { headers });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      const exposed = res.headers.get('access-control-expose-headers')!.split(',');
      const read = 'Content-Range Content-Location Preference-Applied X-RateLimit-Remaining X-Supabase-Api-Version';
      expect(exposed).toEqual(expect.arrayContaining(read.split(' ')));
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('keeps a well-formed incoming request id and replaces a malformed one', async () => {
    const kept = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'bad id\twith tab' } });
    // A fresh id of the server's own (a random UUID can contain the letters "bad": match the whole shape).
    expect(replaced.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('bearer tokens on /rest/v1', () => {
  const call = (token?: string, scheme = 'Bearer ') =>
    fetch(`${server.url}/rest/v1/rpc/echo_request`, {
      method: 'POST',
      headers: {
        apikey: server.ctx.anonKey,
        'content-type': 'application/json',
        'x-client-info': 'supabase-js/2',
        ...(token ? { authorization: `${scheme}${token}` } : {}),
      },
      body: '{}',
    });

  it('gives 401 PGRST301 with status 401 for an expired token', async () => {
    const res = await call(await sign({ sub: 'u1', role: 'authenticated', exp: Math.floor(Date.now() / 1000) - 10 }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      code: 'PGRST301',
      details: null,
      hint: null,
      message: 'JWT expired',
      status: 401,
    });
  });

  it('gives 401 for a token signed with another secret', async () => {
    const res = await call(await sign({ sub: 'u1', role: 'authenticated' }, 'another-secret-'.padEnd(40, 'z')));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'PGRST301' });
  });

  it('runs as the token role with its claims, and keeps credentials out of request.headers', async () => {
    const res = await call(
      await sign({ sub: 'user-1', role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 }),
    );
    expect(res.status).toBe(200);
    const seen = (await res.json()) as Seen;
    expect(seen.role).toBe('authenticated');
    expect(seen.claims).toMatchObject({ sub: 'user-1', role: 'authenticated' });
    expect(seen.headers['x-client-info']).toBe('supabase-js/2');
    expect(seen.headers).not.toHaveProperty('authorization');
    expect(seen.headers).not.toHaveProperty('apikey');
  });

  it('reads the scheme in any case and spacing, and refuses a header that is not one token', async () => {
    const token = await sign({ sub: 'user-2', role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 });
    for (const scheme of ['bearer ', 'BEARER   ', 'Bearer\t']) {
      const res = await call(token, scheme);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Seen).claims).toMatchObject({ sub: 'user-2' });
    }
    // Two words after the scheme are no Bearer token: the request runs with the API key's claims (anon).
    const seen = (await (await call(`${token} extra`)).json()) as Seen;
    expect(seen.role).toBe('anon');
  });

  it('runs as anon with the API key alone', async () => {
    const seen = (await (await call()).json()) as Seen;
    expect(seen.role).toBe('anon');
    expect(seen.claims).toMatchObject({ role: 'anon' });
  });
});

describe('exposed schema', () => {
  it('holds no extension functions (pgcrypto lives in the extensions schema)', async () => {
    const rows = await db.sql`
      select p.proname from pg_proc p
      join pg_depend d on d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'
      where p.pronamespace = 'public'::regnamespace`;
    expect(rows.map((r) => r.proname)).toEqual([]);
    const openapi = await (await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.ctx.anonKey } })).text();
    expect(openapi).not.toContain('/rpc/gen_random_uuid');
  });
});
