// The HTTP adapters (fetch and node:http/Express) and the JWT authenticator over real sockets, with postgrest-js
// as the client: base paths, header and body forms, TypeErrors at the boundary, PostgREST's JWT error codes, the
// role allow-list and the start-up check of the anonymous role.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Readable } from 'node:stream';
import { PostgrestClient } from '@supabase/postgrest-js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler, createJwtAuthenticator, createNodeHandler, createRestEngine } from '../src/index.js';
import { type Harness, setup } from './helpers.js';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
let h: Harness;
const servers: Server[] = [];

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sign = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

beforeAll(async () => {
  h = await setup();
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await h.close();
});

describe('node handler', () => {
  it('serves postgrest-js under a base path with JWT roles, and passes other paths to next()', async () => {
    const handle = createNodeHandler(h.engine, {
      basePath: '/rest/v1',
      authenticate: createJwtAuthenticator({ secret: SECRET }),
    });
    const url = await listen((req, res) => {
      void handle(req, res, () => {
        res.writeHead(418).end('next');
      });
    });
    const token = await sign({ role: 'service_role' });
    const client = new PostgrestClient(`${url}/rest/v1`, { headers: { Authorization: `Bearer ${token}` } });
    const inserted = await client
      .from('tasks')
      .insert({ project_id: 1, title: 'via node', priority: 3 })
      .select('title')
      .single();
    expect(inserted.error).toBeNull();
    expect(inserted.data).toEqual({ title: 'via node' });
    const role = await client.rpc('current_role_name');
    expect(role.data).toBe('service_role');
    const anon = await new PostgrestClient(`${url}/rest/v1`).rpc('current_role_name');
    expect(anon.data).toBe('anon');
    expect((await fetch(`${url}/other`)).status).toBe(418);
  });

  it('takes a body that Express parsed already, and refuses bodies over the limit with 413', async () => {
    const handle = createNodeHandler(h.engine, {
      maxBodyBytes: 64,
      authenticate: async () => ({ role: 'service_role' }),
    });
    const url = await listen((req, res) => {
      // As express.json() leaves it: parsed, the stream read.
      if (req.url === '/parsed') {
        req.url = '/tasks?select=title';
        req.headers.prefer = 'return=representation';
        req.resume();
        (req as { body?: unknown }).body = { project_id: 1, title: 'parsed' };
      }
      void handle(req, res);
    });
    const parsed = await fetch(`${url}/parsed`, { method: 'POST', body: 'ignored' });
    expect(await parsed.json()).toEqual([{ title: 'parsed' }]);
    const big = await fetch(`${url}/tasks`, { method: 'POST', body: JSON.stringify({ title: 'x'.repeat(100) }) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe('PGRST413');
  });

  it('answers 413 to a client that sends its whole oversized body before reading, not a reset', async () => {
    const handle = createNodeHandler(h.engine, { maxBodyBytes: 1000, authenticate: async () => ({ role: 'anon' }) });
    const { port } = new URL(await listen((req, res) => void handle(req, res)));
    const size = 4 * 1024 * 1024;
    for (let i = 0; i < 3; i++) {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        const received: Buffer[] = [];
        socket.pause();
        socket.on('data', (d) => received.push(d));
        socket.on('error', () => {});
        socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
        socket.once('connect', async () => {
          const write = (bytes: Buffer | string) => new Promise((done) => socket.write(bytes, done));
          await write(`POST /tasks HTTP/1.1\r\nhost: x\r\ncontent-length: ${size}\r\n\r\n`);
          // In pieces with small pauses, so the answer and the close come while the body is on its way.
          for (let sent = 0; sent < size && !socket.destroyed; sent += 64 * 1024) {
            await write(Buffer.alloc(64 * 1024, 0x7b));
            await new Promise((r) => setTimeout(r, 2));
          }
          socket.resume();
        });
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('PGRST413');
    }
  });
});

describe('fetch handler', () => {
  it('answers Requests under a base path, with any header case and a stream body', async () => {
    const handler = createFetchHandler(h.engine, { basePath: '/api' });
    const body = new Blob([JSON.stringify({ project_id: 1, title: 'via fetch', priority: 1 })]).stream();
    const res = await handler(
      new Request('http://x/api/tasks?select=title', {
        method: 'POST',
        headers: { Prefer: 'return=representation', 'Content-Type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
      { claims: { role: 'service_role' } },
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual([{ title: 'via fetch' }]);
    const outside = await handler(new Request('http://x/rest/v1/tasks'));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { code: string }).code).toBe('PGRST125');
    await expect(handler('http://x/api/tasks' as unknown as Request)).rejects.toThrow(TypeError);
    expect(() => createFetchHandler(h.engine, { basePath: 'api' })).toThrow(TypeError);
  });
});

describe('engine.handle input', () => {
  it('reads headers in any case and bodies as objects, bytes and node streams', async () => {
    const base = { method: 'POST', path: '/tasks', search: 'select=title', claims: { role: 'service_role' } };
    const asObject = await h.engine.handle({
      ...base,
      headers: new Headers({ Prefer: 'return=representation' }),
      body: { project_id: 1, title: 'object body' },
    });
    expect(asObject.status).toBe(201);
    expect(JSON.parse(asObject.body!)).toEqual([{ title: 'object body' }]);
    const asBytes = await h.engine.handle({
      ...base,
      headers: { PREFER: 'return=representation' },
      body: new TextEncoder().encode('{"project_id":1,"title":"bytes body"}'),
    });
    expect(JSON.parse(asBytes.body!)).toEqual([{ title: 'bytes body' }]);
    const asStream = await h.engine.handle({
      ...base,
      headers: [['Prefer', 'return=representation']],
      body: Readable.from([Buffer.from('{"project_id":1,"title":"stream body"}')]),
    });
    expect(JSON.parse(asStream.body!)).toEqual([{ title: 'stream body' }]);
  });

  it('rejects arguments of the wrong kind with a TypeError before any SQL', async () => {
    await expect(h.engine.handle({ method: 'GET', path: 'tasks' })).rejects.toThrow(TypeError);
    await expect(h.engine.handle({ method: 'GET', path: '/tasks', headers: 'accept' as never })).rejects.toThrow(
      TypeError,
    );
    await expect(h.engine.handle({ method: 'POST', path: '/tasks', body: 42 as never })).rejects.toThrow(TypeError);
    await expect(h.engine.handle({ method: 'POST', path: '/tasks', body: new Date() as never })).rejects.toThrow(
      TypeError,
    );
  });
});

describe('JWT authenticator', () => {
  const answer = async (authenticate: ReturnType<typeof createJwtAuthenticator>, authorization?: string) => {
    try {
      return { ok: await authenticate(authorization ? { authorization } : {}) };
    } catch (e) {
      return { error: e as { status: number; code: string; message: string } };
    }
  };

  it('gives PostgREST codes for bad signatures, expiry, nbf, audience and disabled anonymous access', async () => {
    const auth = createJwtAuthenticator({ secret: SECRET, audience: 'api', clockSkewSeconds: 5 });
    const now = Math.floor(Date.now() / 1000);
    expect((await answer(auth, `Bearer ${await sign({ role: 'x', aud: 'api' })}`)).ok?.role).toBe('x');
    const wrongKey = await answer(auth, `Bearer ${await sign({ aud: 'api' }, `${SECRET}-other`)}`);
    expect(wrongKey.error).toMatchObject({ status: 401, code: 'PGRST301' });
    expect((await answer(auth, 'Bearer not.a.jwt')).error).toMatchObject({ code: 'PGRST301' });
    const expired = await answer(auth, `Bearer ${await sign({ aud: 'api', exp: now - 10 })}`);
    expect(expired.error).toMatchObject({ code: 'PGRST303', message: 'JWT expired' });
    // Within the clock skew an expired token still passes.
    expect((await answer(auth, `Bearer ${await sign({ aud: 'api', exp: now - 2 })}`)).ok).toBeDefined();
    const early = await answer(auth, `Bearer ${await sign({ aud: 'api', nbf: now + 60 })}`);
    expect(early.error).toMatchObject({ code: 'PGRST303', message: 'JWT not yet valid' });
    const aud = await answer(auth, `Bearer ${await sign({ aud: 'other' })}`);
    expect(aud.error).toMatchObject({ code: 'PGRST303', message: 'JWT not in audience' });
    const noAnon = createJwtAuthenticator({ secret: SECRET, anonRole: null });
    expect((await answer(noAnon)).error).toMatchObject({ status: 401, code: 'PGRST302' });
    expect(() => createJwtAuthenticator({ secret: 'short' })).toThrow(TypeError);
  });

  it('reads the role from a JSON path and verifies ES256 tokens against a JWK', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), alg: 'ES256' };
    const auth = createJwtAuthenticator({ jwks: jwk, roleClaimKey: '."https://example.com/claims".roles[1]' });
    const token = await new SignJWT({ 'https://example.com/claims': { roles: ['a', 'service_role'] } })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(privateKey);
    expect((await answer(auth, `Bearer ${token}`)).ok?.role).toBe('service_role');
    const notString = await new SignJWT({ 'https://example.com/claims': { roles: ['a', 7] } })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(privateKey);
    expect((await answer(auth, `Bearer ${notString}`)).error).toMatchObject({ code: 'PGRST303' });
  });
});

describe('roles', () => {
  it('refuses roles outside an allow-list with PGRST303', async () => {
    const engine = await createRestEngine({ sql: h.sql, roles: ['service_role'], listen: false });
    const res = await engine.handle({ method: 'GET', path: '/tasks', claims: { role: 'authenticated' } });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body!).code).toBe('PGRST303');
  });

  it('checks at start that the anonymous role exists and can be switched to', async () => {
    await expect(createRestEngine({ sql: h.sql, anonRole: 'anonn', listen: false })).rejects.toThrow(
      /anonymous role "anonn" does not exist/,
    );
    const owner = h.db.sql;
    try {
      await owner`create role lonely_anon nologin`;
      await expect(createRestEngine({ sql: h.sql, anonRole: 'lonely_anon', listen: false })).rejects.toThrow(
        /cannot switch to the anonymous role "lonely_anon"/,
      );
    } finally {
      await owner`drop role if exists lonely_anon`;
    }
  });
});
