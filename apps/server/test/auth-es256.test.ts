// Asymmetric access tokens: with JWT_ES256_PRIVATE_KEY the server signs ES256 with a kid, publishes the JWKS,
// its own gateway accepts the tokens, and auth-js verifies them locally (getClaims) against the JWKS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPKCS8, generateKeyPair } from 'jose';
import { createClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, NoWebSocket } from './support/test-server.js';
import type { RunningServer } from '@auction-ops/server';

let t: TestServer;
let server: RunningServer;

beforeAll(async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  t = await startTestServer({
    JWT_SECRET: 'e'.repeat(40),
    WORKERS_ENABLED: 'false',
    JWT_ES256_PRIVATE_KEY: await exportPKCS8(privateKey),
  });
  ({ server } = t);
});
afterAll(async () => {
  await t?.stop();
});

describe('ES256 access tokens', () => {
  it('signs with a kid from the JWKS; the gateway and auth-js both verify them', async () => {
    const jwks = (await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json()) as {
      keys: Array<{ kid: string; d?: string }>;
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0].d).toBeUndefined();
    const sb = createClient(server.url, server.ctx.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: NoWebSocket as never },
    });
    const { data, error } = await sb.auth.signUp({ email: 'es@example.com', password: 'long enough pass' });
    expect(error).toBeNull();
    const header = JSON.parse(Buffer.from(data.session!.access_token.split('.')[0], 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', kid: jwks.keys[0].kid });
    expect((await sb.auth.getUser()).data.user?.email).toBe('es@example.com');
    const claims = await sb.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.sub).toBe(data.user!.id);
  });
});
