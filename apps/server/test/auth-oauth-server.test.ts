// End to end: the OAuth 2.1 authorization server (AUTH_OAUTH_SERVER_ENABLED). The client registry through
// supabase-js's admin API, the consent calls through supabase-js's auth.oauth, and the protocol as another tool
// speaks it, with plain fetch and no API key: authorize -> consent -> code -> token -> a REST call with the token.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type SignedUpUser, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';

let t: TestServer;
let admin: SupabaseClient['auth']['admin']['oauth'];

beforeAll(async () => {
  t = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_OAUTH_SERVER_ENABLED: 'true',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
  });
  admin = createClient(t.url, t.serviceRoleKey, TEST_CLIENT_OPTIONS).auth.admin.oauth;
});
afterAll(async () => {
  await t?.stop();
});

const CALLBACK = 'http://localhost:8123/callback';
let n = 0;
const address = () => `oauth-server${++n}.${Date.now()}@example.com`;

function pkce(method: 'S256' | 'plain' = 'S256') {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return { verifier, challenge, method };
}

async function registerClient(extra: Record<string, unknown> = {}) {
  const { data, error } = await admin.createClient({
    client_name: 'Yard tool',
    redirect_uris: [CALLBACK],
    ...extra,
  } as never);
  expect(error).toBeNull();
  return data!;
}

/** GET /oauth/authorize as a browser would follow it: the Location it is sent to. */
async function authorize(
  params: Record<string, string>,
): Promise<{ status: number; location: URL | null; body?: unknown }> {
  const res = await fetch(`${t.url}/auth/v1/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location ? new URL(location) : null,
    body: location ? undefined : await res.json(),
  };
}

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/auth/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** One user's consent to one request: the code and state the client's redirect URI receives. */
async function approvedCode(clientId: string, user: SignedUpUser, challenge: string, scope = 'email') {
  const started = await authorize({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope,
    state: 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  expect(started.status).toBe(302);
  const authorizationId = started.location!.searchParams.get('authorization_id')!;
  const details = await user.client.auth.oauth.getAuthorizationDetails(authorizationId);
  expect(details.error).toBeNull();
  const redirect =
    'redirect_url' in details.data!
      ? details.data.redirect_url
      : (await user.client.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true })).data!
          .redirect_url;
  const url = new URL(redirect);
  return { code: url.searchParams.get('code')!, state: url.searchParams.get('state'), url, authorizationId };
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());

describe('client registry (admin API, supabase-js)', () => {
  it('creates, reads, lists a page at a time, updates, regenerates the secret of and deletes a client', async () => {
    const created = await registerClient({ client_uri: 'https://yard.example.com', scope: 'email profile' });
    expect(created.client_secret).toMatch(/^[\w-]{43}$/);
    expect(created).toMatchObject({
      client_name: 'Yard tool',
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      registration_type: 'manual',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'email profile',
    });
    // Stored hashed, never in the clear.
    const [row] = await t.db.sql`select client_secret_hash from auth.oauth_clients where id = ${created.client_id}`;
    expect(row!.client_secret_hash).toBe(createHash('sha256').update(created.client_secret!).digest('hex'));

    const got = await admin.getClient(created.client_id);
    expect(got.error).toBeNull();
    expect(got.data).not.toHaveProperty('client_secret');
    expect(got.data?.client_uri).toBe('https://yard.example.com');

    await registerClient({ client_name: 'Second' });
    const page = await admin.listClients({ page: 1, perPage: 1 });
    expect(page.error).toBeNull();
    expect(page.data.clients).toHaveLength(1);
    expect(page.data.clients[0]!.client_name).toBe('Second'); // newest first
    expect((page.data as { total: number }).total).toBeGreaterThanOrEqual(2);
    expect((page.data as { nextPage: number | null }).nextPage).toBe(2);
    const all = await admin.listClients();
    expect(all.data.clients.map((c) => c.client_id)).toContain(created.client_id);

    const updated = await admin.updateClient(created.client_id, { logo_uri: 'https://yard.example.com/logo.png' });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ client_name: 'Yard tool', logo_uri: 'https://yard.example.com/logo.png' });

    const regenerated = await admin.regenerateClientSecret(created.client_id);
    expect(regenerated.data?.client_secret).toMatch(/^[\w-]{43}$/);
    expect(regenerated.data?.client_secret).not.toBe(created.client_secret);

    expect((await admin.deleteClient(created.client_id)).error).toBeNull();
    const gone = await admin.getClient(created.client_id);
    expect(gone.data).toBeNull();
    expect(gone.error?.status).toBe(404);
    expect(gone.error?.code).toBe('oauth_client_not_found');
  });

  it('refuses bad registrations in GoTrue words', async () => {
    const none = await admin.createClient({ client_name: 'x', redirect_uris: [] });
    expect(none.error?.status).toBe(400);
    expect(none.error?.message).toBe('redirect_uris is required');
    const http = await admin.createClient({ client_name: 'x', redirect_uris: ['http://yard.example.com/cb'] });
    expect(http.error?.message).toBe(
      "invalid redirect_uri 'http://yard.example.com/cb': HTTP scheme only allowed for localhost",
    );
    const mixed = await admin.createClient({
      client_name: 'x',
      redirect_uris: [CALLBACK],
      client_type: 'public',
      token_endpoint_auth_method: 'client_secret_basic',
    } as never);
    expect(mixed.error?.code).toBe('validation_failed');
    const scope = await admin.createClient({ client_name: 'x', redirect_uris: [CALLBACK], scope: 'email admin' });
    expect(scope.error?.message).toBe('unsupported scope: admin');
    const publicClient = await registerClient({ client_type: 'public' });
    expect(publicClient.client_secret).toBeUndefined();
    expect(publicClient.token_endpoint_auth_method).toBe('none');
    const regen = await admin.regenerateClientSecret(publicClient.client_id);
    expect(regen.error?.message).toBe('Cannot regenerate secret for public client');
  });

  it('is for the service role only', async () => {
    const user = await t.signUp(address());
    for (const key of [t.anonKey, user.token]) {
      const res = await fetch(`${t.url}/auth/v1/admin/oauth/clients`, {
        method: 'POST',
        headers: { apikey: t.anonKey, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'sneaky', redirect_uris: [CALLBACK] }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error_code: 'not_admin' });
    }
    const asAnon = await createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS).auth.admin.oauth.listClients();
    expect(asAnon.error?.status).toBe(403);
  });
});

describe('the protocol, as another tool speaks it', () => {
  it('authorize -> consent -> code -> token -> REST, then refresh through the client only', async () => {
    const client = await registerClient({ client_type: 'public', client_name: 'Lot counter' });
    const user = await t.signUp(address());
    const { verifier, challenge } = pkce();

    const started = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'email profile',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(started.status).toBe(302);
    expect(`${started.location!.origin}${started.location!.pathname}`).toBe(`${t.url}/oauth/consent`);
    const authorizationId = started.location!.searchParams.get('authorization_id')!;

    const details = await user.client.auth.oauth.getAuthorizationDetails(authorizationId);
    expect(details.error).toBeNull();
    expect(details.data).toEqual({
      authorization_id: authorizationId,
      redirect_uri: CALLBACK,
      client: { id: client.client_id, name: 'Lot counter', uri: '', logo_uri: '' },
      user: { id: user.id, email: user.email },
      scope: 'email profile',
    });
    const approved = await user.client.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
    expect(approved.error).toBeNull();
    const back = new URL(approved.data!.redirect_url);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(back.searchParams.get('state')).toBe('xyz');
    const code = back.searchParams.get('code')!;
    // Only the code's hash is stored.
    const [stored] = await t.db
      .sql`select code_hash from auth.oauth_authorizations where authorization_id = ${authorizationId}`;
    expect(stored!.code_hash).not.toContain(code);

    const issued = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(issued.status).toBe(200);
    expect(Object.keys(issued.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    const claims = claimsOf(issued.body.access_token!);
    expect(claims).toMatchObject({
      sub: user.id,
      role: 'authenticated',
      client_id: client.client_id,
      scope: 'email profile',
    });

    // Our ordinary access token: row-level security sees the user.
    const rest = createClient(t.url, t.anonKey, {
      ...TEST_CLIENT_OPTIONS,
      global: { headers: { Authorization: `Bearer ${issued.body.access_token}` } },
    });
    const { data: rows, error } = await rest.from('users').select('id');
    expect(error).toBeNull();
    expect(rows).toEqual([{ id: user.id }]);

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token!,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access_token!).client_id).toBe(client.client_id);

    // The session belongs to the client: the app's own refresh grant may not take it over.
    const viaApp = await fetch(`${t.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: refreshed.body.refresh_token }),
    });
    expect(viaApp.status).toBe(400);
    expect(await viaApp.json()).toEqual({
      error: 'invalid_client',
      error_description: 'Client authentication required for OAuth session',
    });
    // ...and that refusal did not spend the token.
    const again = await token({
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token!,
      client_id: client.client_id,
    });
    expect(again.status).toBe(200);
  });

  it('matches redirect URIs exactly: a wrong one is answered, never followed', async () => {
    const client = await registerClient({ client_type: 'public' });
    const { challenge, verifier } = pkce();
    for (const redirect of [
      `${CALLBACK}/other`,
      'http://localhost:8123/callback?x=1',
      'http://localhost:8124/callback',
    ]) {
      const res = await authorize({
        client_id: client.client_id,
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error_code: 'validation_failed', msg: 'invalid redirect_uri' });
    }
    const user = await t.signUp(address());
    const { code } = await approvedCode(client.client_id, user, challenge);
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${CALLBACK}/other`,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid redirect_uri' } });
  });

  it('refuses a wrong code_verifier without spending the code, and a code presented twice', async () => {
    const client = await registerClient({ client_type: 'public' });
    const user = await t.signUp(address());
    const { challenge, verifier } = pkce();
    const { code } = await approvedCode(client.client_id, user, challenge);
    const exchange = (code_verifier: string) =>
      token({ grant_type: 'authorization_code', code, client_id: client.client_id, code_verifier });

    const wrong = await exchange(pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: 'PKCE verification failed: code challenge does not match',
    });
    const first = await exchange(verifier);
    expect(first.status).toBe(200);
    const second = await exchange(verifier);
    expect(second).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid authorization code' },
    });
    // The replay ends the session the code opened (RFC 6749 4.1.2).
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token!,
      client_id: client.client_id,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refuses an expired code', async () => {
    const client = await registerClient({ client_type: 'public' });
    const user = await t.signUp(address());
    const { challenge, verifier } = pkce();
    const { code, authorizationId } = await approvedCode(client.client_id, user, challenge);
    await t.db.sql`
      update auth.oauth_authorizations set code_expires_at = now() - interval '1 second'
      where authorization_id = ${authorizationId}`;
    const res = await token({
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(res).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Authorization code has expired' },
    });
  });

  it('a deleted client can neither start, finish nor refresh', async () => {
    const client = await registerClient({ client_type: 'public' });
    const user = await t.signUp(address());
    const { challenge, verifier } = pkce();
    const first = await approvedCode(client.client_id, user, challenge);
    const issued = await token({
      grant_type: 'authorization_code',
      code: first.code,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(issued.status).toBe(200);
    const pending = pkce();
    const second = await approvedCode(client.client_id, user, pending.challenge);

    expect((await admin.deleteClient(client.client_id)).error).toBeNull();
    const started = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(started.status).toBe(400);
    expect(started.body).toMatchObject({ error_code: 'oauth_client_not_found', msg: 'invalid client_id' });
    const exchange = await token({
      grant_type: 'authorization_code',
      code: second.code,
      client_id: client.client_id,
      code_verifier: pending.verifier,
    });
    expect(exchange.status).toBe(400);
    expect(exchange.body).toMatchObject({ error: 'invalid_credentials' });
    const [sessions] = await t.db.sql`select count(*)::int as n from auth.sessions where user_id = ${user.id}
      and oauth_client_id is not null`;
    expect(sessions!.n).toBe(0);
    const me = await fetch(`${t.url}/auth/v1/user`, {
      headers: { apikey: t.anonKey, authorization: `Bearer ${issued.body.access_token}` },
    });
    expect(me.status).toBe(403);
  });

  it('sends request errors to the client once the client and redirect URI are known good', async () => {
    const client = await registerClient({ client_type: 'public' });
    const plain = pkce('plain');
    const noPlain = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      state: 's',
      code_challenge: plain.challenge,
      code_challenge_method: 'plain',
    });
    expect(noPlain.status).toBe(302);
    expect(Object.fromEntries(noPlain.location!.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: "public clients must use code_challenge_method 'S256'",
      state: 's',
    });
    const noPkce = await authorize({ client_id: client.client_id, redirect_uri: CALLBACK });
    expect(noPkce.location!.searchParams.get('error_description')).toBe(
      'PKCE flow requires both code_challenge and code_challenge_method',
    );
    const badScope = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      scope: 'email openid',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    expect(badScope.location!.searchParams.get('error')).toBe('invalid_scope');
  });

  it('denial returns access_denied; another user cannot see or answer the request', async () => {
    const client = await registerClient({ client_type: 'public' });
    const owner = await t.signUp(address());
    const other = await t.signUp(address());
    const started = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      state: 'q',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const id = started.location!.searchParams.get('authorization_id')!;
    expect((await owner.client.auth.oauth.getAuthorizationDetails(id)).error).toBeNull();
    const peek = await other.client.auth.oauth.getAuthorizationDetails(id);
    expect(peek.error?.status).toBe(404);
    expect(peek.error?.code).toBe('oauth_authorization_not_found');
    expect((await other.client.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true })).error?.status).toBe(
      404,
    );
    const denied = await owner.client.auth.oauth.denyAuthorization(id, { skipBrowserRedirect: true });
    const url = new URL(denied.data!.redirect_url);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'User denied the request',
      state: 'q',
    });
    const twice = await owner.client.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true });
    expect(twice.error?.message).toBe('authorization request is no longer pending');
    const fromElsewhere = await fetch(`${t.url}/auth/v1/oauth/authorizations/${id}`, {
      headers: { apikey: t.anonKey, authorization: `Bearer ${owner.token}`, origin: 'https://evil.example.com' },
    });
    expect(fromElsewhere.status).toBe(400);
  });

  it('authenticates a confidential client by its secret; a regenerated secret replaces the old', async () => {
    const client = await registerClient();
    const user = await t.signUp(address());
    const basic = (secret: string) => ({
      authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}`,
    });
    const { challenge, verifier } = pkce();
    const { code } = await approvedCode(client.client_id, user, challenge);
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier };

    const wrong = await token(form, basic('not-the-secret'));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_credentials');
    const inBody = await token({ ...form, client_id: client.client_id, client_secret: client.client_secret! });
    expect(inBody.body.error_description).toMatch(/registered for 'client_secret_basic'/);
    const regenerated = (await admin.regenerateClientSecret(client.client_id)).data!;
    expect((await token(form, basic(client.client_secret!))).body.error).toBe('invalid_credentials');
    const ok = await token(form, basic(regenerated.client_secret!));
    expect(ok.status).toBe(200);
  });

  it('remembers consent, lists grants, and a revoked grant ends the client sessions', async () => {
    const client = await registerClient({ client_type: 'public', client_name: 'Remembered' });
    const user = await t.signUp(address());
    const first = pkce();
    const one = await approvedCode(client.client_id, user, first.challenge);
    const issued = await token({
      grant_type: 'authorization_code',
      code: one.code,
      client_id: client.client_id,
      code_verifier: first.verifier,
    });
    expect(issued.status).toBe(200);
    // Same scopes again: the details call answers the redirect at once.
    const started = await authorize({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const details = await user.client.auth.oauth.getAuthorizationDetails(
      started.location!.searchParams.get('authorization_id')!,
    );
    expect(details.data).toHaveProperty('redirect_url');
    expect(new URL((details.data as { redirect_url: string }).redirect_url).searchParams.get('code')).toBeTruthy();

    const grants = await user.client.auth.oauth.listGrants();
    expect(grants.data).toEqual([
      {
        client: { id: client.client_id, name: 'Remembered', uri: '', logo_uri: '' },
        scopes: ['email'],
        granted_at: expect.any(String),
      },
    ]);
    expect((await user.client.auth.oauth.revokeGrant({ clientId: client.client_id })).error).toBeNull();
    expect((await user.client.auth.oauth.listGrants()).data).toEqual([]);
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token!,
      client_id: client.client_id,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const again = await user.client.auth.oauth.revokeGrant({ clientId: client.client_id });
    expect(again.error?.code).toBe('oauth_consent_not_found');
  });

  it('publishes its metadata without an API key', async () => {
    const res = await fetch(`${t.url}/auth/v1/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      issuer: `${t.url}/auth/v1`,
      authorization_endpoint: `${t.url}/auth/v1/oauth/authorize`,
      token_endpoint: `${t.url}/auth/v1/oauth/token`,
      code_challenge_methods_supported: ['S256', 'plain'],
    });
  });
});
