// End to end: passkeys through supabase-js (auth.passkey.*, auth.admin.passkey.*) against the real server, with a
// software authenticator (support/software-authenticator.ts) speaking the real WebAuthn protocol: registration,
// discoverable sign-in, listing, renaming, removal, and the answers a server must refuse (wrong or replayed
// challenge, wrong origin, unknown or someone else's credential, a counter that goes back, a removed passkey).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { asPublicKeyCredential, SoftwareAuthenticator } from './support/software-authenticator.js';
import { NoWebSocket, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:5173';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestServer;
let off: TestServer;

beforeAll(async () => {
  const common = { AUTH_RATE_LIMIT_SIGN_UP: '1000', AUTH_RATE_LIMIT_SIGN_IN: '1000', WORKERS_ENABLED: 'false' };
  [t, off] = await Promise.all([
    startTestServer({
      ...common,
      AUTH_PASSKEYS_ENABLED: 'true',
      AUTH_MFA_WEBAUTHN_ENROLL_ENABLED: 'true',
      AUTH_MFA_WEBAUTHN_VERIFY_ENABLED: 'true',
      AUTH_WEBAUTHN_RP_ID: RP_ID,
      AUTH_WEBAUTHN_RP_ORIGINS: `${ORIGIN},https://app.localhost`,
    }),
    startTestServer(common),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.stop(), off?.stop()]);
});

function client(server = t, serviceRole = false): SupabaseClient {
  const key = serviceRole ? server.serviceRoleKey : server.anonKey;
  return createClient(server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, experimental: { passkey: true } },
    realtime: { transport: NoWebSocket as never },
  });
}

let n = 0;
async function signedUp(server = t): Promise<{ sb: SupabaseClient; id: string }> {
  const sb = client(server);
  const { data, error } = await sb.auth.signUp({
    email: `pk${++n}.${Date.now()}@example.com`,
    password: TEST_PASSWORD,
  });
  expect(error).toBeNull();
  return { sb, id: data.user!.id };
}

/** Registers a passkey held by `authenticator` for the signed-in client; answers the passkey's id. */
async function register(sb: SupabaseClient, authenticator = new SoftwareAuthenticator(ORIGIN)): Promise<string> {
  const { data: options, error } = await sb.auth.passkey.startRegistration();
  expect(error).toBeNull();
  const { data, error: verifyError } = await sb.auth.passkey.verifyRegistration({
    challengeId: options!.challenge_id,
    credential: authenticator.create(options!.options) as never,
  });
  expect(verifyError).toBeNull();
  return data!.id;
}

async function signInWith(authenticator: SoftwareAuthenticator, overrides: { userHandle?: string } = {}) {
  const sb = client();
  const { data: options, error } = await sb.auth.passkey.startAuthentication();
  expect(error).toBeNull();
  const credential = authenticator.get(options!.options, overrides);
  const result = await sb.auth.passkey.verifyAuthentication({ challengeId: options!.challenge_id, credential });
  return { sb, ...result };
}

describe('registration', () => {
  it('hands out creation options for a discoverable credential bound to the user and this relying party', async () => {
    const { sb, id } = await signedUp();
    const { data, error } = await sb.auth.passkey.startRegistration();
    expect(error).toBeNull();
    expect(data!.challenge_id).toMatch(UUID);
    expect(data!.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(data!.expires_at).toBeLessThanOrEqual(Date.now() / 1000 + 301);
    const options = data!.options;
    expect(options.rp.id).toBe(RP_ID);
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(id);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(options.pubKeyCredParams).toContainEqual({ alg: -7, type: 'public-key' });
    expect(options.authenticatorSelection?.residentKey).toBe('required');
  });

  it('stores the credential; list, rename and the admin list show it', async () => {
    const { sb, id } = await signedUp();
    const passkeyId = await register(sb);
    expect(passkeyId).toMatch(UUID);
    const listed = await sb.auth.passkey.list();
    expect(listed.error).toBeNull();
    expect(listed.data).toEqual([{ id: passkeyId, friendly_name: 'Passkey', created_at: expect.any(String) }]);

    const renamed = await sb.auth.passkey.update({ passkeyId, friendlyName: 'yard laptop' });
    expect(renamed.error).toBeNull();
    expect(renamed.data).toMatchObject({ id: passkeyId, friendly_name: 'yard laptop' });
    const admin = await client(t, true).auth.admin.passkey.listPasskeys({ userId: id });
    expect(admin.data?.map((p) => [p.id, p.friendly_name])).toEqual([[passkeyId, 'yard laptop']]);
  });

  it('refuses an unknown challenge, another user’s challenge, and a used one', async () => {
    const { sb } = await signedUp();
    const { sb: other } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const { data: options } = await sb.auth.passkey.startRegistration();
    const credential = authenticator.create(options!.options) as never;

    const unknown = await sb.auth.passkey.verifyRegistration({
      challengeId: '00000000-0000-0000-0000-000000000000',
      credential,
    });
    expect(unknown.error).toMatchObject({ status: 400, code: 'webauthn_challenge_not_found' });
    const stolen = await other.auth.passkey.verifyRegistration({ challengeId: options!.challenge_id, credential });
    expect(stolen.error).toMatchObject({ status: 400, code: 'webauthn_challenge_not_found' });
    // The owner's challenge is still there (another user's attempt did not spend it), and is good once.
    const first = await sb.auth.passkey.verifyRegistration({ challengeId: options!.challenge_id, credential });
    expect(first.error).toBeNull();
    const again = await sb.auth.passkey.verifyRegistration({ challengeId: options!.challenge_id, credential });
    expect(again.error).toMatchObject({ code: 'webauthn_challenge_not_found' });
    expect((await sb.auth.passkey.list()).data).toHaveLength(1);
  });

  it('refuses an attestation made on another origin, for another RP ID, or over another challenge', async () => {
    const { sb } = await signedUp();
    const attempt = async (authenticator: SoftwareAuthenticator, challengeOf?: string) => {
      const { data: options } = await sb.auth.passkey.startRegistration();
      const signed = challengeOf ? { ...options!.options, challenge: challengeOf } : options!.options;
      return sb.auth.passkey.verifyRegistration({
        challengeId: options!.challenge_id,
        credential: authenticator.create(signed) as never,
      });
    };
    const evilOrigin = await attempt(new SoftwareAuthenticator('https://evil.example'));
    expect(evilOrigin.error).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });
    const evilRp = await attempt(new SoftwareAuthenticator(ORIGIN, 'evil.example'));
    expect(evilRp.error).toMatchObject({ code: 'webauthn_verification_failed' });
    const otherChallenge = await attempt(new SoftwareAuthenticator(ORIGIN), Buffer.alloc(32, 7).toString('base64url'));
    expect(otherChallenge.error).toMatchObject({ code: 'webauthn_verification_failed' });
    // Each configured origin is accepted.
    const second = await attempt(new SoftwareAuthenticator('https://app.localhost'));
    expect(second.error).toBeNull();
    expect((await sb.auth.passkey.list()).data).toHaveLength(1);
  });

  it('refuses the same authenticator credential twice, and an expired challenge', async () => {
    const { sb } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await register(sb, authenticator);
    const { data: again } = await sb.auth.passkey.startRegistration();
    expect(again!.options.excludeCredentials?.map((c) => c.id)).toEqual([authenticator.id]);
    const duplicate = await sb.auth.passkey.verifyRegistration({
      challengeId: again!.challenge_id,
      credential: authenticator.create(again!.options) as never,
    });
    expect(duplicate.error).toMatchObject({ status: 422, code: 'webauthn_credential_exists' });

    const { data: late } = await sb.auth.passkey.startRegistration();
    await t.db.sql`update auth.webauthn_challenges set expires_at = now() - interval '1 second'
      where id = ${late!.challenge_id}`;
    const expired = await sb.auth.passkey.verifyRegistration({
      challengeId: late!.challenge_id,
      credential: new SoftwareAuthenticator(ORIGIN).create(late!.options) as never,
    });
    expect(expired.error).toMatchObject({ status: 400, code: 'webauthn_challenge_expired' });
  });

  it('needs a session, and a malformed body is a validation error', async () => {
    const res = await fetch(`${t.url}/auth/v1/passkeys/registration/options`, {
      method: 'POST',
      headers: { apikey: t.anonKey },
    });
    expect(res.status).toBe(401);
    const { sb } = await signedUp();
    const bad = await sb.auth.passkey.verifyRegistration({ challengeId: 'nope', credential: {} as never });
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe('sign-in', () => {
  it('signs in with a discoverable credential: a session at aal1, amr passkey; the passkey records its use', async () => {
    const { sb: owner, id } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await register(owner, authenticator);

    const { data: options } = await client().auth.passkey.startAuthentication();
    expect(options!.options.allowCredentials ?? []).toEqual([]);
    expect(options!.options.rpId).toBe(RP_ID);

    const { sb, data, error } = await signInWith(authenticator);
    expect(error).toBeNull();
    expect(data!.user!.id).toBe(id);
    const claims = decodeJwt(data!.session!.access_token) as { aal: string; amr: Array<{ method: string }> };
    expect(claims.aal).toBe('aal1');
    expect(claims.amr.map((a) => a.method)).toEqual(['passkey']);
    const user = await sb.auth.getUser();
    expect(user.data.user?.id).toBe(id);
    const listed = await owner.auth.passkey.list();
    expect(listed.data![0]!.last_used_at).toEqual(expect.any(String));
    // The refresh token works like any other.
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
  });

  it('refuses a replayed assertion, and an assertion over another challenge', async () => {
    const { sb: owner } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await register(owner, authenticator);
    const sb = client();
    const { data: options } = await sb.auth.passkey.startAuthentication();
    const assertion = authenticator.get(options!.options);
    const first = await sb.auth.passkey.verifyAuthentication({
      challengeId: options!.challenge_id,
      credential: assertion,
    });
    expect(first.error).toBeNull();
    const replay = await sb.auth.passkey.verifyAuthentication({
      challengeId: options!.challenge_id,
      credential: assertion,
    });
    expect(replay.error).toMatchObject({ status: 400, code: 'webauthn_challenge_not_found' });

    const { data: fresh } = await sb.auth.passkey.startAuthentication();
    const stale = await sb.auth.passkey.verifyAuthentication({
      challengeId: fresh!.challenge_id,
      credential: assertion,
    });
    expect(stale.error).toMatchObject({ code: 'webauthn_verification_failed' });
  });

  it('refuses another origin and another RP ID', async () => {
    const { sb: owner } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await register(owner, authenticator);
    authenticator.origin = 'https://phish.example';
    expect((await signInWith(authenticator)).error).toMatchObject({ code: 'webauthn_verification_failed' });
    authenticator.origin = ORIGIN;
    authenticator.rpId = 'phish.example';
    expect((await signInWith(authenticator)).error).toMatchObject({ code: 'webauthn_verification_failed' });
    authenticator.rpId = undefined;
    expect((await signInWith(authenticator)).error).toBeNull();
  });

  it('refuses an unregistered authenticator, and a user handle naming someone else', async () => {
    const { sb: owner } = await signedUp();
    const { id: victim } = await signedUp();
    const stranger = new SoftwareAuthenticator(ORIGIN);
    stranger.userHandle = Buffer.from(victim).toString('base64url');
    const unknown = await signInWith(stranger);
    expect(unknown.error).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });
    expect(unknown.data).toBeNull();

    const own = new SoftwareAuthenticator(ORIGIN);
    await register(owner, own);
    const forged = await signInWith(own, { userHandle: Buffer.from(victim).toString('base64url') });
    expect(forged.error).toMatchObject({ code: 'webauthn_verification_failed' });
  });

  it('refuses a signature counter that does not rise (a cloned authenticator)', async () => {
    const { sb: owner } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await register(owner, authenticator);
    expect((await signInWith(authenticator)).error).toBeNull();
    expect((await signInWith(authenticator)).error).toBeNull(); // counter 2 stored
    authenticator.counter = 0; // the next assertion says 1
    const clone = await signInWith(authenticator);
    expect(clone.error).toMatchObject({ code: 'webauthn_verification_failed' });
    authenticator.counter = 10;
    expect((await signInWith(authenticator)).error).toBeNull();
  });

  it('a removed passkey signs nobody in; another user cannot remove or rename it', async () => {
    const { sb: owner } = await signedUp();
    const { sb: other } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const passkeyId = await register(owner, authenticator);
    const foreignDelete = await other.auth.passkey.delete({ passkeyId });
    expect(foreignDelete.error).toMatchObject({ status: 404 });
    const foreignRename = await other.auth.passkey.update({ passkeyId, friendlyName: 'mine now' });
    expect(foreignRename.error).toMatchObject({ status: 404 });
    expect((await signInWith(authenticator)).error).toBeNull();

    expect((await owner.auth.passkey.delete({ passkeyId })).error).toBeNull();
    expect((await owner.auth.passkey.list()).data).toEqual([]);
    const after = await signInWith(authenticator);
    expect(after.error).toMatchObject({ code: 'webauthn_verification_failed' });
  });
});

describe('management rules and the admin API', () => {
  it('a user with a verified factor manages passkeys only from an aal2 session', async () => {
    const { sb } = await signedUp();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const passkeyId = await register(sb, authenticator);
    const key = new SoftwareAuthenticator(ORIGIN);
    const { data: factor } = await sb.auth.mfa.webauthn.enroll({ friendlyName: 'key' });
    const { data: challenge } = await sb.auth.mfa.challenge({ factorId: factor!.id, webauthn: { rpId: RP_ID } });
    if (challenge?.webauthn.type !== 'create') throw new Error('expected creation options');
    const verified = await sb.auth.mfa.verify({
      factorId: factor!.id,
      challengeId: challenge.id,
      webauthn: {
        type: 'create',
        rpId: RP_ID,
        credential_response: asPublicKeyCredential(
          key.create(challenge.webauthn.credential_options.publicKey as never),
        ) as never,
      },
    });
    expect(verified.error).toBeNull();

    // A passkey sign-in is aal1: from there the passkeys cannot be changed.
    const { sb: aal1 } = await signInWith(authenticator);
    const options = await aal1.auth.passkey.startRegistration();
    expect(options.error).toMatchObject({ status: 403, code: 'insufficient_aal' });
    const removal = await aal1.auth.passkey.delete({ passkeyId });
    expect(removal.error).toMatchObject({ status: 403, code: 'insufficient_aal' });
    // The aal2 session can.
    expect((await sb.auth.passkey.startRegistration()).error).toBeNull();
  });

  it('the service role lists and removes a user’s passkeys; others get 403', async () => {
    const { sb, id } = await signedUp();
    const keep = await register(sb);
    const drop = await register(sb);
    const admin = client(t, true).auth.admin.passkey;
    expect((await admin.deletePasskey({ userId: id, passkeyId: drop })).error).toBeNull();
    expect((await admin.listPasskeys({ userId: id })).data?.map((p) => p.id)).toEqual([keep]);
    const missing = await admin.deletePasskey({ userId: id, passkeyId: drop });
    expect(missing.error).toMatchObject({ status: 404 });

    const { data: session } = await sb.auth.getSession();
    const res = await fetch(`${t.url}/auth/v1/admin/users/${id}/passkeys`, {
      headers: { apikey: t.anonKey, Authorization: `Bearer ${session.session!.access_token}` },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error_code: 'not_admin' });
  });
});

describe('switched off', () => {
  it('answers GoTrue’s 404 passkey_disabled on every /passkeys route', async () => {
    const { sb } = await signedUp(off);
    const start = await sb.auth.passkey.startRegistration();
    expect(start.error).toMatchObject({ status: 404, code: 'passkey_disabled' });
    const signIn = await client(off).auth.passkey.startAuthentication();
    expect(signIn.error).toMatchObject({ status: 404, code: 'passkey_disabled' });
    expect((await sb.auth.passkey.list()).error).toMatchObject({ code: 'passkey_disabled' });
  });

  it('WebAuthn factors answer GoTrue’s not-enabled errors; TOTP factors still work', async () => {
    const { sb } = await signedUp(off);
    const enroll = await sb.auth.mfa.webauthn.enroll({ friendlyName: 'key' });
    expect(enroll.error).toMatchObject({ status: 422, code: 'mfa_webauthn_enroll_not_enabled' });
    expect((await sb.auth.mfa.enroll({ factorType: 'totp' })).error).toBeNull();
  });
});
