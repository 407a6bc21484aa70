// End to end: TOTP multi-factor through supabase-js (auth.mfa.*) against the real server, and row-level security
// that asks for aal2 (an auction with require_mfa_for_admins).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AuthChangeEvent, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import type { TestDatabase } from '@auction-ops/database/testing';
import type { RunningServer } from '@auction-ops/server';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';

let t: TestServer;
let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  t = await startTestServer({
    JWT_SECRET: 'm'.repeat(40),
    WORKERS_ENABLED: 'false',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
    AUTH_RATE_LIMIT_MFA_VERIFY: '4',
  });
  ({ db, server } = t);
});
afterAll(async () => {
  await t?.stop();
});

const PASSWORD = 'correct horse battery';
let n = 0;
const email = () => `mfa${++n}.${Date.now()}@example.com`;

function client(): SupabaseClient {
  return createClient(server.url, server.ctx.anonKey, TEST_CLIENT_OPTIONS);
}

/** The code of the time step `steps` away from now: each verification needs a newer step than the last. */
function code(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

async function signedIn(address = email()): Promise<SupabaseClient> {
  const sb = client();
  const { error } = await sb.auth.signUp({ email: address, password: PASSWORD });
  expect(error).toBeNull();
  return sb;
}

async function enrolled(sb: SupabaseClient): Promise<{ factorId: string; secret: string }> {
  const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
  expect(error).toBeNull();
  return { factorId: data!.id, secret: data!.totp.secret };
}

async function claims(sb: SupabaseClient) {
  const { data } = await sb.auth.getSession();
  return decodeJwt(data.session!.access_token) as { aal: string; amr: Array<{ method: string }> };
}

describe('enroll, challenge, verify', () => {
  it('enrolls a TOTP factor: secret, otpauth URI and an SVG QR code; listed as unverified', async () => {
    const address = email();
    const sb = await signedIn(address);
    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone', issuer: 'Yard' });
    expect(error).toBeNull();
    expect(data!.type).toBe('totp');
    expect(data!.friendly_name).toBe('phone');
    expect(data!.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(data!.totp.uri).toMatch(/^otpauth:\/\/totp\/Yard:/);
    expect(new URL(data!.totp.uri).searchParams.get('secret')).toBe(data!.totp.secret);
    expect(data!.totp.uri).toContain(encodeURIComponent(address));
    expect(data!.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg[\s\S]*<\/svg>\s*$/);

    const listed = await sb.auth.mfa.listFactors();
    expect(listed.data!.all.map((f) => [f.id, f.status, f.factor_type])).toEqual([[data!.id, 'unverified', 'totp']]);
    expect(listed.data!.totp).toEqual([]);
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  it('keeps the secret encrypted at rest', async () => {
    const sb = await signedIn();
    const { factorId, secret } = await enrolled(sb);
    const [row] = await db.sql<Array<{ secret: string }>>`select secret from auth.mfa_factors where id = ${factorId}`;
    expect(row!.secret).not.toContain(secret);
    expect(row!.secret.startsWith('v1:')).toBe(true);
  });

  it('challengeAndVerify raises the session to aal2 with a totp amr entry, kept through refresh', async () => {
    const sb = await signedIn();
    const { factorId, secret } = await enrolled(sb);
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { data, error } = await sb.auth.mfa.challengeAndVerify({ factorId, code: code(secret) });
    expect(error).toBeNull();
    expect(data!.access_token).toBeTruthy();
    expect(events).toContain('MFA_CHALLENGE_VERIFIED');
    const token = await claims(sb);
    expect(token.aal).toBe('aal2');
    expect(token.amr.map((a) => a.method)).toEqual(['password', 'totp']);
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const listed = await sb.auth.mfa.listFactors();
    expect(listed.data!.totp.map((f) => [f.id, f.status])).toEqual([[factorId, 'verified']]);

    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const after = decodeJwt(refreshed.data.session!.access_token) as { aal: string; amr: Array<{ method: string }> };
    expect(after.aal).toBe('aal2');
    expect(after.amr.map((a) => a.method)).toEqual(['password', 'totp']);
  });

  it('refuses a wrong code, a replayed code, an expired challenge and an unknown factor', async () => {
    const sb = await signedIn();
    const { factorId, secret } = await enrolled(sb);

    const wrong = await sb.auth.mfa.challengeAndVerify({ factorId, code: code(secret, 5) });
    expect(wrong.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    expect((await claims(sb)).aal).toBe('aal1');

    const good = code(secret);
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: good })).error).toBeNull();
    const replay = await sb.auth.mfa.challengeAndVerify({ factorId, code: good });
    expect(replay.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });

    const challenge = await sb.auth.mfa.challenge({ factorId });
    expect(challenge.data!.expires_at).toBeGreaterThan(Date.now() / 1000);
    await db.sql`update auth.mfa_challenges set created_at = now() - interval '10 minutes'
      where id = ${challenge.data!.id}`;
    const expired = await sb.auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code: code(secret, 1) });
    expect(expired.error).toMatchObject({ status: 422, code: 'mfa_challenge_expired' });

    const unknown = await sb.auth.mfa.challenge({ factorId: crypto.randomUUID() });
    expect(unknown.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
  });

  it("does not let one user challenge or unenroll another user's factor", async () => {
    const owner = await signedIn();
    const { factorId } = await enrolled(owner);
    const other = await signedIn();
    expect((await other.auth.mfa.challenge({ factorId })).error).toMatchObject({ code: 'mfa_factor_not_found' });
    expect((await other.auth.mfa.unenroll({ factorId })).error).toMatchObject({ code: 'mfa_factor_not_found' });
  });

  it('answers 401 without a session', async () => {
    const res = await fetch(`${server.url}/auth/v1/factors`, {
      method: 'POST',
      headers: { apikey: server.ctx.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ factor_type: 'totp' }),
    });
    expect(res.status).toBe(401);
  });

  it('counts verifications per user and answers 429 past the limit', async () => {
    const sb = await signedIn();
    const { factorId, secret } = await enrolled(sb);
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < 5; i++) {
      const { error } = await sb.auth.mfa.challengeAndVerify({ factorId, code: code(secret, 7) });
      codes.push(error?.code);
    }
    expect(codes).toEqual([
      'mfa_verification_failed',
      'mfa_verification_failed',
      'mfa_verification_failed',
      'mfa_verification_failed',
      'rate_limit_exceeded',
    ]);
  });
});

describe('unenroll and assurance levels', () => {
  it('refuses to unenroll or add a factor at aal1 once a verified factor exists; allows both at aal2', async () => {
    const address = email();
    const first = await signedIn(address);
    const { factorId, secret } = await enrolled(first);
    expect((await first.auth.mfa.challengeAndVerify({ factorId, code: code(secret) })).error).toBeNull();

    const sb = client();
    expect((await sb.auth.signInWithPassword({ email: address, password: PASSWORD })).error).toBeNull();
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const refused = await sb.auth.mfa.unenroll({ factorId });
    expect(refused.error).toMatchObject({ status: 422, code: 'insufficient_aal' });
    const second = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'tablet' });
    expect(second.error).toMatchObject({ status: 403, code: 'insufficient_aal' });

    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: code(secret, 1) })).error).toBeNull();
    const done = await sb.auth.mfa.unenroll({ factorId });
    expect(done.error).toBeNull();
    expect(done.data).toEqual({ id: factorId });
    expect((await sb.auth.mfa.listFactors()).data!.all).toEqual([]);
  });

  it('unenrolls an unverified factor at aal1, and refuses a second factor of the same name', async () => {
    const sb = await signedIn();
    const { factorId } = await enrolled(sb);
    const same = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    expect(same.error).toMatchObject({ status: 422, code: 'mfa_factor_name_conflict' });
    expect((await sb.auth.mfa.unenroll({ factorId })).error).toBeNull();
  });
});

describe('row-level security at aal2', () => {
  it("an auction requiring MFA refuses its owner's admin writes until the session is aal2", async () => {
    const address = email();
    const sb = await signedIn(address);
    const slug = `mfa-${Date.now()}`;
    const created = await sb.from('auctions').insert({ name: 'MFA auction', slug }).select('id').single();
    expect(created.error).toBeNull();
    const auctionId = created.data!.id as string;
    const requireMfa = (c: SupabaseClient) =>
      c
        .from('auctions')
        .update({ settings: { timezone: 'UTC', require_mfa_for_admins: true } })
        .eq('id', auctionId)
        .select('id');
    // Switching it on is itself a second-factor action.
    expect((await requireMfa(sb)).error).toMatchObject({ code: '42501' });

    const { factorId, secret } = await enrolled(sb);
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: code(secret) })).error).toBeNull();
    expect((await requireMfa(sb)).error).toBeNull();
    const after = await sb.from('locations').insert({ auction_id: auctionId, name: 'Lot 1' }).select('id');
    expect(after.error).toBeNull();
    expect(after.data).toHaveLength(1);

    // The same owner signed in with the password alone (aal1) acts as a member.
    const passwordOnly = client();
    expect((await passwordOnly.auth.signInWithPassword({ email: address, password: PASSWORD })).error).toBeNull();
    expect((await claims(passwordOnly)).aal).toBe('aal1');
    const refused = await passwordOnly.from('locations').insert({ auction_id: auctionId, name: 'Lot 2' }).select('id');
    expect(refused.error).toMatchObject({ code: '42501' });
  });
});
