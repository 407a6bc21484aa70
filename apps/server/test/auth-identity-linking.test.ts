// GoTrue's manual linking through supabase-js: with AUTH_MANUAL_LINKING_ENABLED off (the default) linkIdentity
// (OAuth or an ID token) and unlinkIdentity answer 404 manual_linking_disabled and change nothing; with it on,
// linkIdentity with an ID token of the loopback OpenID provider attaches the identity to the signed-in caller.
// The OAuth redirect dance of linkIdentity is in auth-oauth.browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startServerWithProvider } from './support/oidc-provider.js';
import type { TestServer } from './support/test-server.js';

const APP = 'http://app.example.test';
let off: { t: TestServer; idp: FakeOidcProvider; stop(): Promise<void> };
let on: { t: TestServer; idp: FakeOidcProvider; stop(): Promise<void> };

beforeAll(async () => {
  [off, on] = await Promise.all([
    startServerWithProvider({ APP_URL: APP }),
    startServerWithProvider({ APP_URL: APP, AUTH_MANUAL_LINKING_ENABLED: 'true', AUTH_ANONYMOUS_SIGN_INS: 'true' }),
  ]);
});
afterAll(async () => {
  await Promise.all([off?.stop(), on?.stop()]);
});

let n = 0;
const address = (who: string) => `${who}-${process.pid}-${++n}@example.com`;
const disabled = { status: 404, code: 'manual_linking_disabled', message: 'Manual linking is disabled' };

describe('manual linking off (the default)', () => {
  it('refuses linkIdentity for an OAuth provider and with an ID token, and attaches nothing', async () => {
    const user = await off.t.signUp(address('off-link'));
    const oauth = await user.client.auth.linkIdentity({
      provider: 'keycloak',
      options: { redirectTo: `${APP}/callback`, skipBrowserRedirect: true },
    });
    expect(oauth.error).toMatchObject(disabled);
    expect(oauth.data.url).toBeNull();

    const token = await off.idp.signIdToken({ sub: `off-${n}`, email: user.email, email_verified: true });
    const idToken = await user.client.auth.linkIdentity({ provider: 'keycloak', token });
    expect(idToken.error).toMatchObject(disabled);
    const identities = (await user.client.auth.getUserIdentities()).data!.identities;
    expect(identities.map((i) => i.provider)).toEqual(['email']);
  });

  it('refuses unlinkIdentity, even of an identity the user could otherwise drop', async () => {
    const user = await off.t.signUp(address('off-unlink'));
    const [email] = (await user.client.auth.getUserIdentities()).data!.identities;
    expect(await user.client.auth.unlinkIdentity(email!)).toMatchObject({ error: disabled });
    const [row] = await off.t.db.sql`select count(*)::int as n from auth.identities where user_id = ${user.id}`;
    expect(row!.n).toBe(1);
  });

  it('asks for a signed-in caller before saying linking is off', async () => {
    const res = await fetch(`${off.t.url}/auth/v1/user/identities/00000000-0000-0000-0000-000000000000`, {
      method: 'DELETE',
      headers: { apikey: off.t.anonKey },
    });
    expect(res.status).toBe(401);
  });
});

describe('manual linking on', () => {
  it('links an ID token to the signed-in user, who keeps their id and gets a fresh session', async () => {
    const user = await on.t.signUp(address('on-link'));
    const sub = `linked-${process.pid}-${++n}`;
    const token = await on.idp.signIdToken({ sub, email: `elsewhere-${sub}@idp.example.test`, email_verified: true });
    const { data, error } = await user.client.auth.linkIdentity({ provider: 'keycloak', token });
    expect(error).toBeNull();
    expect(data.user!.id).toBe(user.id);
    expect(data.user!.email).toBe(user.email);
    expect(data.session!.access_token).not.toBe(user.token);
    expect(data.user!.app_metadata.providers).toEqual(['email', 'keycloak']);
    const identities = (await user.client.auth.getUserIdentities()).data!.identities;
    expect(identities.map((i) => [i.provider, i.id]).sort()).toEqual([
      ['email', user.id],
      ['keycloak', sub],
    ]);

    // The identity is this user's: another user cannot link it, and unlinking it leaves the e-mail identity.
    const other = await on.t.signUp(address('on-other'));
    const taken = await other.client.auth.linkIdentity({ provider: 'keycloak', token });
    expect(taken.error).toMatchObject({ status: 422, code: 'identity_already_exists' });
    const keycloak = identities.find((i) => i.provider === 'keycloak')!;
    expect((await user.client.auth.unlinkIdentity(keycloak)).error).toBeNull();
    const left = (await user.client.auth.getUserIdentities()).data!.identities;
    expect(left.map((i) => i.provider)).toEqual(['email']);
    expect((await user.client.auth.unlinkIdentity(left[0]!)).error).toMatchObject({
      status: 422,
      code: 'single_identity_not_deletable',
    });
  });

  it('makes an anonymous user a permanent one', async () => {
    const client = on.t.client();
    const anonymous = await client.auth.signInAnonymously();
    expect(anonymous.error).toBeNull();
    const token = await on.idp.signIdToken({ sub: `was-anonymous-${++n}`, email_verified: false });
    const { data, error } = await client.auth.linkIdentity({ provider: 'keycloak', token });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: anonymous.data.user!.id, is_anonymous: false });
  });

  it('refuses link_identity without an Authorization token, and with a token that is not a user', async () => {
    const token = await on.idp.signIdToken({ sub: `nobody-${++n}`, email_verified: false });
    const post = (headers: Record<string, string>) =>
      fetch(`${on.t.url}/auth/v1/token?grant_type=id_token`, {
        method: 'POST',
        headers: { apikey: on.t.anonKey, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ provider: 'keycloak', id_token: token, link_identity: true }),
      });
    const bare = await post({});
    expect(bare.status).toBe(400);
    expect(await bare.json()).toEqual({
      error: 'invalid request',
      error_description: 'Linking requires a valid user access token in Authorization',
    });
    const asAnon = await post({ authorization: `Bearer ${on.t.anonKey}` });
    expect(asAnon.status).toBe(401);
    const [row] = await on.t.db
      .sql`select count(*)::int as n from auth.identities where provider_id = ${`nobody-${n}`}`;
    expect(row!.n).toBe(0);
  });
});
