// supabase-js signInWithIdToken (POST /token?grant_type=id_token) against the loopback OpenID provider: tokens
// signed with the provider's published key sign in (nonce and at_hash checked, the callback's account rules);
// forged, expired, foreign-issuer, wrong-audience and nonce-mismatched tokens and disabled providers are refused.
import { createHash } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, OIDC_CLIENT_ID, startServerWithProvider } from './support/oidc-provider.js';
import { type TestServer, testClient } from './support/test-server.js';

let t: TestServer;
let idp: FakeOidcProvider;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ t, idp, stop } = await startServerWithProvider());
});
afterAll(async () => {
  await stop?.();
});

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const signIn = (credentials: { provider: string; token: string; nonce?: string; access_token?: string }) =>
  testClient(t.url, t.anonKey).auth.signInWithIdToken(credentials);

/** Refused with GoTrue's OAuthError: 400 and its description as the message, no error code. */
async function expectRefused(
  token: string,
  description: string,
  extra: { nonce?: string; access_token?: string } = {},
) {
  const { data, error } = await signIn({ provider: 'keycloak', token, ...extra });
  expect(data.session).toBeNull();
  expect(error).toMatchObject({ status: 400, message: description });
}

describe('signInWithIdToken, accepted', () => {
  it('signs in with a provider token, its hashed nonce and at_hash, and creates the keycloak identity', async () => {
    const nonce = 'raw nonce the app kept';
    const accessToken = 'provider-access-token';
    const atHash = createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
    const token = await idp.signIdToken({
      sub: 'idt-alice',
      email: 'Alice.IdToken@idp.example.test',
      email_verified: true,
      name: 'Alice',
      nonce: sha256Hex(nonce),
      at_hash: atHash,
    });
    const { data, error } = await signIn({ provider: 'keycloak', token, nonce, access_token: accessToken });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email: 'alice.idtoken@idp.example.test',
      app_metadata: { provider: 'keycloak', providers: ['keycloak'] },
      user_metadata: { full_name: 'Alice', email_verified: true },
    });
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect(data.user!.identities).toEqual([expect.objectContaining({ provider: 'keycloak', id: 'idt-alice' })]);
    const claims = JSON.parse(Buffer.from(data.session!.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.amr).toEqual([expect.objectContaining({ method: 'oauth' })]);

    // The same subject again is the same account, and its session is real.
    const again = await signIn({ provider: 'keycloak', token: await idp.signIdToken({ sub: 'idt-alice' }) });
    expect(again.error).toBeNull();
    expect(again.data.user!.id).toBe(data.user!.id);
    const client = testClient(t.url, t.anonKey, again.data.session!.access_token);
    expect((await client.auth.getUser()).data.user!.id).toBe(data.user!.id);
  });

  it('links a verified address to the existing account, as the callback does', async () => {
    const { data: admin } = await testClient(t.url, t.serviceRoleKey).auth.admin.createUser({
      email: 'bob.idtoken@idp.example.test',
      password: 'a long password 1',
      email_confirm: true,
    });
    const token = await idp.signIdToken({
      sub: 'idt-bob',
      email: 'bob.idtoken@idp.example.test',
      email_verified: true,
    });
    const { data, error } = await signIn({ provider: 'KeyCloak', token });
    expect(error).toBeNull();
    expect(data.user!.id).toBe(admin.user!.id);
    expect(data.user!.app_metadata.providers).toEqual(expect.arrayContaining(['email', 'keycloak']));
  });
});

describe('signInWithIdToken, refused', () => {
  it('a provider that is known but off, or not known at all', async () => {
    const token = await idp.signIdToken({ sub: 'idt-x' });
    const google = await signIn({ provider: 'google', token });
    expect(google.error).toMatchObject({
      status: 400,
      code: 'provider_disabled',
      message: 'Provider (issuer "https://accounts.google.com") is not enabled',
    });
    const github = await signIn({ provider: 'github', token });
    expect(github.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Custom OIDC provider "github" not allowed',
    });
  });

  it('a token signed with another key under the provider key id, or altered after signing', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ sub: 'idt-mallory', iss: idp.issuer, aud: OIDC_CLIENT_ID, exp: now + 600 })
      .setProtectedHeader({ alg: 'RS256', kid: 'fixture-key' })
      .sign(privateKey);
    await expectRefused(forged, 'Bad ID token');
    const [header, , signature] = (await idp.signIdToken({ sub: 'idt-alice2' })).split('.');
    const payload = Buffer.from(JSON.stringify({ sub: 'idt-alice', iss: idp.issuer, aud: OIDC_CLIENT_ID })).toString(
      'base64url',
    );
    await expectRefused(`${header}.${payload}.${signature}`, 'Bad ID token');
  });

  it('an expired token, another issuer, a wrong at_hash', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expectRefused(await idp.signIdToken({ sub: 'idt-y', iat: past - 600, exp: past }), 'Bad ID token');
    await expectRefused(await idp.signIdToken({ sub: 'idt-y', iss: 'https://other.example.test' }), 'Bad ID token');
    await expectRefused(await idp.signIdToken({ sub: 'idt-y', at_hash: 'AAAAAAAAAAAAAAAAAAAAAA' }), 'Bad ID token', {
      access_token: 'some access token',
    });
  });

  it('a token for another client: GoTrue body, no session', async () => {
    const token = await idp.signIdToken({ sub: 'idt-z', aud: 'someone-else' });
    await expectRefused(token, 'Unacceptable audience in id_token: [someone-else]');
    const res = await fetch(`${t.url}/auth/v1/token?grant_type=id_token`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'keycloak', id_token: token }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid request',
      error_description: 'Unacceptable audience in id_token: [someone-else]',
    });
    const [row] = await t.db.sql`select count(*)::int as n from auth.identities where provider_id = 'idt-z'`;
    expect(row!.n).toBe(0);
  });

  it('nonce: a mismatch, one without the other', async () => {
    const token = await idp.signIdToken({ sub: 'idt-n', nonce: sha256Hex('the right nonce') });
    await expectRefused(token, 'Nonces mismatch', { nonce: 'another nonce' });
    // The hashed value itself is not the nonce: a token caught in transit cannot be replayed with it.
    await expectRefused(token, 'Nonces mismatch', { nonce: sha256Hex('the right nonce') });
    const both = 'Passed nonce and nonce in id_token should either both exist or not.';
    await expectRefused(token, both);
    await expectRefused(await idp.signIdToken({ sub: 'idt-n' }), both, { nonce: 'the right nonce' });
  });

  it('no token: GoTrue invalid request', async () => {
    await expectRefused('', 'id_token required');
  });
});
