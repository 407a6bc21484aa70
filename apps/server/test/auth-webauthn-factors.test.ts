// End to end: WebAuthn as an MFA factor beside TOTP, through supabase-js (auth.mfa.* with factorType 'webauthn')
// against the real server, with the software authenticator of support/: enrolment by a creation ceremony, later
// proofs by assertions of that one key, aal2 and amr `mfa/webauthn`, and the answers that must be refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { asPublicKeyCredential, SoftwareAuthenticator } from './support/software-authenticator.js';
import { NoWebSocket, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:5173';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
    AUTH_PASSKEYS_ENABLED: 'true',
    AUTH_MFA_WEBAUTHN_ENROLL_ENABLED: 'true',
    AUTH_MFA_WEBAUTHN_VERIFY_ENABLED: 'true',
    AUTH_WEBAUTHN_RP_ID: RP_ID,
    AUTH_WEBAUTHN_RP_ORIGINS: ORIGIN,
  });
});
afterAll(async () => {
  await t?.stop();
});

function client(): SupabaseClient {
  return createClient(t.url, t.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, experimental: { passkey: true } },
    realtime: { transport: NoWebSocket as never },
  });
}

let n = 0;
async function signedUp(): Promise<{ sb: SupabaseClient; email: string }> {
  const sb = client();
  const email = `wa${++n}.${Date.now()}@example.com`;
  const { error } = await sb.auth.signUp({ email, password: TEST_PASSWORD });
  expect(error).toBeNull();
  return { sb, email };
}

async function signedIn(email: string): Promise<SupabaseClient> {
  const sb = client();
  const { error } = await sb.auth.signInWithPassword({ email, password: TEST_PASSWORD });
  expect(error).toBeNull();
  return sb;
}

function claims(token: string) {
  return decodeJwt(token) as { aal: string; amr: Array<{ method: string }> };
}

type Options = Record<string, unknown> & { challenge: ArrayBuffer };

async function challenge(sb: SupabaseClient, factorId: string) {
  const { data, error } = await sb.auth.mfa.challenge({ factorId, webauthn: { rpId: RP_ID } });
  expect(error).toBeNull();
  return {
    id: data!.id,
    type: data!.webauthn.type,
    publicKey: data!.webauthn.credential_options.publicKey as unknown as Options,
  };
}

function verify(sb: SupabaseClient, factorId: string, challengeId: string, type: 'create' | 'request', json: object) {
  return sb.auth.mfa.verify({
    factorId,
    challengeId,
    webauthn: { type, rpId: RP_ID, credential_response: asPublicKeyCredential(json) as never },
  });
}

/** A user with a verified WebAuthn factor held by `key`; the aal2 client and the factor's id. */
async function withFactor(key = new SoftwareAuthenticator(ORIGIN)) {
  const { sb, email } = await signedUp();
  const { data: factor, error } = await sb.auth.mfa.webauthn.enroll({ friendlyName: 'yard key' });
  expect(error).toBeNull();
  const c = await challenge(sb, factor!.id);
  const verified = await verify(sb, factor!.id, c.id, 'create', key.create(c.publicKey as never));
  expect(verified.error).toBeNull();
  return { sb, email, factorId: factor!.id, key };
}

describe('enrolment', () => {
  it('enrolls an unverified factor, registers its key by a creation ceremony, and raises the session to aal2', async () => {
    const { sb } = await signedUp();
    const { data: factor, error } = await sb.auth.mfa.webauthn.enroll({ friendlyName: 'yard key' });
    expect(error).toBeNull();
    expect(factor).toEqual({ id: expect.any(String), type: 'webauthn', friendly_name: 'yard key' });
    let listed = await sb.auth.mfa.listFactors();
    expect(listed.data!.all.map((f) => [f.id, f.factor_type, f.status])).toEqual([
      [factor!.id, 'webauthn', 'unverified'],
    ]);

    const c = await challenge(sb, factor!.id);
    expect(c.type).toBe('create');
    expect((c.publicKey.rp as { id: string }).id).toBe(RP_ID);
    expect(c.publicKey.challenge.byteLength).toBeGreaterThanOrEqual(32);
    const key = new SoftwareAuthenticator(ORIGIN);
    const { data: session, error: verifyError } = await verify(
      sb,
      factor!.id,
      c.id,
      'create',
      key.create(c.publicKey as never),
    );
    expect(verifyError).toBeNull();
    const token = claims(session!.access_token);
    expect(token.aal).toBe('aal2');
    expect(token.amr.map((a) => a.method)).toEqual(['password', 'mfa/webauthn']);

    listed = await sb.auth.mfa.listFactors();
    expect(listed.data!.webauthn.map((f) => [f.id, f.status])).toEqual([[factor!.id, 'verified']]);
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    // The factor's key is not a passkey.
    expect((await sb.auth.passkey.list()).data).toEqual([]);
  });

  it('refuses an attestation from another origin, and a request-type answer to a creation challenge', async () => {
    const { sb } = await signedUp();
    const { data: factor } = await sb.auth.mfa.webauthn.enroll({ friendlyName: 'k' });
    let c = await challenge(sb, factor!.id);
    const phished = await verify(
      sb,
      factor!.id,
      c.id,
      'create',
      new SoftwareAuthenticator('https://evil.example').create(c.publicKey as never),
    );
    expect(phished.error).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });
    c = await challenge(sb, factor!.id);
    const key = new SoftwareAuthenticator(ORIGIN);
    const wrongType = await verify(sb, factor!.id, c.id, 'request', key.create(c.publicKey as never));
    expect(wrongType.error).toMatchObject({ code: 'webauthn_verification_failed' });
    const listed = await sb.auth.mfa.listFactors();
    expect(listed.data!.all.map((f) => f.status)).toEqual(['unverified']);
  });

  it('a second factor needs aal2; an empty friendly name is allowed; TOTP still enrolls beside it', async () => {
    const { sb, email } = await withFactor();
    const aal1 = await signedIn(email);
    const refused = await aal1.auth.mfa.webauthn.enroll({ friendlyName: 'second' });
    expect(refused.error).toMatchObject({ status: 403, code: 'insufficient_aal' });
    const unnamed = await sb.auth.mfa.webauthn.enroll({ friendlyName: '' });
    expect(unnamed.error).toBeNull();
    const totp = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    expect(totp.error).toBeNull();
    const c = await sb.auth.mfa.challenge({ factorId: totp.data!.id });
    const code = new TOTP({ secret: Secret.fromBase32(totp.data!.totp.secret) }).generate();
    const verified = await sb.auth.mfa.verify({ factorId: totp.data!.id, challengeId: c.data!.id, code });
    expect(verified.error).toBeNull();
  });
});

describe('verification with the registered key', () => {
  it('a password session proves the factor with an assertion of its key and reaches aal2', async () => {
    const { email, factorId, key } = await withFactor();
    const sb = await signedIn(email);
    const { data: session } = await sb.auth.getSession();
    expect(claims(session.session!.access_token).aal).toBe('aal1');
    const c = await challenge(sb, factorId);
    expect(c.type).toBe('request');
    const allowed = (c.publicKey.allowCredentials as Array<{ id: ArrayBuffer }>).map((d) =>
      Buffer.from(d.id).toString('base64url'),
    );
    expect(allowed).toEqual([key.id]);
    const { data, error } = await verify(sb, factorId, c.id, 'request', key.get(c.publicKey as never));
    expect(error).toBeNull();
    expect(claims(data!.access_token).aal).toBe('aal2');
    expect(claims(data!.access_token).amr.map((a) => a.method)).toEqual(['password', 'mfa/webauthn']);
  });

  it('refuses a replayed challenge, another key, the user’s own passkey, and a counter that goes back', async () => {
    const { sb: owner, email, factorId, key } = await withFactor();
    const sb = await signedIn(email);
    const c = await challenge(sb, factorId);
    const assertion = key.get(c.publicKey as never);
    expect((await verify(sb, factorId, c.id, 'request', assertion)).error).toBeNull();
    const replay = await verify(sb, factorId, c.id, 'request', assertion);
    expect(replay.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });

    // Another user's factor key, answering a challenge that did not list it.
    const { key: foreignKey } = await withFactor();
    const unlisted = (await challenge(sb, factorId)).publicKey;
    const foreign = await verify(
      sb,
      factorId,
      (await challenge(sb, factorId)).id,
      'request',
      foreignKey.get({ ...unlisted, allowCredentials: [] } as never),
    );
    expect(foreign.error).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });

    // The user's own passkey is a different credential: it does not prove the factor.
    const passkey = new SoftwareAuthenticator(ORIGIN);
    const { data: options } = await owner.auth.passkey.startRegistration();
    await owner.auth.passkey.verifyRegistration({
      challengeId: options!.challenge_id,
      credential: passkey.create(options!.options) as never,
    });
    const p = await challenge(sb, factorId);
    const byPasskey = await verify(
      sb,
      factorId,
      p.id,
      'request',
      passkey.get({ ...p.publicKey, allowCredentials: [] } as never),
    );
    expect(byPasskey.error).toMatchObject({ code: 'webauthn_verification_failed' });

    const counter = key.counter;
    key.counter = 0;
    const r = await challenge(sb, factorId);
    const cloned = await verify(sb, factorId, r.id, 'request', key.get(r.publicKey as never));
    expect(cloned.error).toMatchObject({ code: 'webauthn_verification_failed' });
    key.counter = counter;
    const s = await challenge(sb, factorId);
    expect((await verify(sb, factorId, s.id, 'request', key.get(s.publicKey as never))).error).toBeNull();
  });

  it('another user’s factor is not found; an expired challenge is refused', async () => {
    const { factorId } = await withFactor();
    const { sb: stranger } = await signedUp();
    const foreign = await stranger.auth.mfa.challenge({ factorId, webauthn: { rpId: RP_ID } });
    expect(foreign.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });

    const { email, factorId: own, key } = await withFactor();
    const sb = await signedIn(email);
    const c = await challenge(sb, own);
    await t.db.sql`update auth.webauthn_challenges set expires_at = now() - interval '1 second' where id = ${c.id}`;
    const late = await verify(sb, own, c.id, 'request', key.get(c.publicKey as never));
    expect(late.error).toMatchObject({ status: 422, code: 'mfa_challenge_expired' });
  });

  it('unenrolling the factor (from aal2) removes its key', async () => {
    const { sb, factorId } = await withFactor();
    expect((await sb.auth.mfa.unenroll({ factorId })).error).toBeNull();
    expect((await sb.auth.mfa.listFactors()).data!.all).toEqual([]);
    const [{ count }] = await t.db.sql<Array<{ count: number }>>`
      select count(*)::int from auth.webauthn_credentials where factor_id = ${factorId}`;
    expect(count).toBe(0);
  });
});
