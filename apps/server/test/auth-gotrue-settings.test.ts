// The settings that put the server into the auth-js suite's configurations: AUTH_JWT_KEYS (RS256 API keys signed
// with the CLI's signing_keys.json are accepted, a key of another pair is not; its signing key signs access tokens,
// which auth-js verifies against the JWKS) and AUTH_REQUIRE_APIKEY=false (a bare GoTrue's /auth/v1 without an
// apikey; the other families still require one).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { createClient } from '@supabase/supabase-js';
import { NoWebSocket, startTestServer, type TestServer } from './support/test-server.js';

const KID = 'test-rsa-key';
const rsaJwk = (): JWK => ({
  ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
  kid: KID,
  alg: 'RS256',
  key_ops: ['sign', 'verify'],
});
const trusted = rsaJwk();
const stranger = rsaJwk();
// A second listed key that may only verify (a rotated-out key, say): published and trusted, never signing.
const verifyOnly: JWK = { ...rsaJwk(), kid: 'verify-only-key', key_ops: ['verify'] };

async function rs256Key(jwk: JWK, role: string): Promise<string> {
  const key = await importJWK({ ...jwk, key_ops: undefined }, 'RS256');
  return new SignJWT({ role, iss: 'supabase-demo' })
    .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
}

const noRealtime = { realtime: { transport: NoWebSocket as never } };
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_JWT_KEYS: JSON.stringify([verifyOnly, trusted]),
    AUTH_REQUIRE_APIKEY: 'false',
    AUTH_MIN_PASSWORD_LENGTH: '6',
  });
});
afterAll(async () => {
  await t?.stop();
});

describe('AUTH_JWT_KEYS', () => {
  it('accepts an RS256 anon key signed with a listed key: supabase-js signs up with it', async () => {
    const sb = createClient(t.url, await rs256Key(trusted, 'anon'), { auth: { persistSession: false }, ...noRealtime });
    const { data, error } = await sb.auth.signUp({ email: 'rsa-key@example.com', password: 'abc123' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe('rsa-key@example.com');
  });

  it('accepts an RS256 service key for the admin API', async () => {
    const admin = createClient(t.url, await rs256Key(trusted, 'service_role'), {
      auth: { persistSession: false },
      ...noRealtime,
    });
    const { data, error } = await admin.auth.admin.listUsers();
    expect(error).toBeNull();
    expect(data.users.map((u) => u.email)).toContain('rsa-key@example.com');
  });

  it('refuses a key with the same kid from another key pair', async () => {
    const res = await fetch(`${t.url}/rest/v1/`, { headers: { apikey: await rs256Key(stranger, 'anon') } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'Invalid API key' });
  });

  it('signs access tokens with the key whose key_ops include sign; auth-js getClaims verifies them locally', async () => {
    const sb = createClient(t.url, await rs256Key(trusted, 'anon'), { auth: { persistSession: false }, ...noRealtime });
    const { data, error } = await sb.auth.signUp({ email: 'rsa-signed@example.com', password: 'abc123' });
    expect(error).toBeNull();
    const token = data.session!.access_token;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', kid: KID, typ: 'JWT' });

    const jwks = (await (await fetch(`${t.url}/auth/v1/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([KID, 'verify-only-key']);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', key_ops: ['verify'] });
      for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(part);
    }
    expect((await jwtVerify(token, createLocalJWKSet(jwks))).payload.email).toBe('rsa-signed@example.com');

    // getClaims checks the signature against the JWKS itself instead of asking the server for the user.
    const getUser = vi.spyOn(sb.auth, 'getUser');
    const claims = await sb.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims).toMatchObject({ email: 'rsa-signed@example.com', role: 'authenticated' });
    expect(getUser).not.toHaveBeenCalled();
    // The server's own gateway accepts the token it signed.
    expect((await sb.auth.getUser()).data.user?.email).toBe('rsa-signed@example.com');
  });

  it('refuses a signing key in AUTH_JWT_KEYS together with JWT_ES256_PRIVATE_KEY', async () => {
    const es256 = JSON.stringify(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
    );
    await expect(
      startTestServer({ AUTH_JWT_KEYS: JSON.stringify([trusted]), JWT_ES256_PRIVATE_KEY: es256 }),
    ).rejects.toThrow(/not both/);
  });

  it('refuses to start with a value that is not JSON', async () => {
    await expect(startTestServer({ AUTH_JWT_KEYS: 'not json' })).rejects.toThrow(/AUTH_JWT_KEYS/);
  });
});

describe('AUTH_REQUIRE_APIKEY=false', () => {
  it('lets supabase-js sign up and in on /auth/v1 without an apikey, as a bare GoTrue', async () => {
    // The GoTrue client of the docker tests sends no apikey at all.
    const keyless = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.delete('apikey');
      if (headers.get('authorization') === 'Bearer unused') headers.delete('authorization');
      return fetch(input, { ...init, headers });
    };
    const client = createClient(t.url, 'unused', {
      auth: { persistSession: false },
      global: { fetch: keyless },
      ...noRealtime,
    });
    const up = await client.auth.signUp({ email: 'keyless@example.com', password: 'abc123' });
    expect(up.error).toBeNull();
    const { data, error } = await client.auth.getUser(up.data.session!.access_token);
    expect(error).toBeNull();
    expect(data.user?.email).toBe('keyless@example.com');
  });

  it('gives a keyless caller no admin rights', async () => {
    const res = await fetch(`${t.url}/auth/v1/admin/users`);
    expect(res.status).toBe(403);
  });

  it('still requires a key on the other families', async () => {
    const res = await fetch(`${t.url}/rest/v1/`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'No API key found in request' });
  });
});
