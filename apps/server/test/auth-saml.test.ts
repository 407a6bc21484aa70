// SAML 2.0 SSO end to end: the admin API for identity providers, our SP metadata, signInWithSSO (supabase-js) by
// domain and provider id, and a fake identity provider (support/fake-saml-idp.ts) that signs real responses and
// posts them to the ACS: implicit and PKCE sign-ins, and the answers that must be refused. A second server with
// SAML off answers GoTrue's disabled error.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samlCertificate } from '../src/services/saml-services.js';
import { createLocalCertificates } from '@auction-ops/server-config/local-certificates';
import { FakeSamlIdp, NAMEID_EMAIL, NAMEID_TRANSIENT, postToAcs } from './support/fake-saml-idp.js';
import { startTestServer, TEST_CLIENT_OPTIONS, type TestServer } from './support/test-server.js';

const APP = 'http://app.example.test';
let t: TestServer;
let idp: FakeSamlIdp;
let providerId: string;
let base: string;

const spKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' });

/**
 * The identity providers tests register besides `idp`, made before the server starts. Each makes its certificates
 * synchronously (RSA keys: seconds on a busy machine); made between two requests, they blocked the event loop past
 * the in-process server's keep-alive timeout, which then closed the connection fetch was reusing (ECONNRESET).
 */
let spares: FakeSamlIdp[] = [];
const otherIdp = () => spares.pop()!;

beforeAll(async () => {
  spares = Array.from({ length: 5 }, () => new FakeSamlIdp());
  t = await startTestServer({
    APP_URL: APP,
    AUTH_SAML_ENABLED: 'true',
    AUTH_SAML_PRIVATE_KEY: spKey.toString(),
    AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS: 'true',
    // Each sign-in here is two requests in the sign-in bucket (POST /sso and the ACS).
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
  });
  base = `${t.url}/auth/v1`;
  idp = new FakeSamlIdp();
  const res = await admin('POST', '/admin/sso/providers', {
    type: 'saml',
    metadata_xml: idp.metadata(),
    domains: ['acme.example.com'],
    attribute_mapping: { keys: { name: { name: 'displayName' } } },
  });
  expect(res.status).toBe(201);
  providerId = ((await res.json()) as { id: string }).id;
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

function admin(method: string, path: string, body?: unknown, key = t.serviceRoleKey) {
  return fetch(`${base}${path}`, {
    method,
    headers: { apikey: t.anonKey, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const client = (flowType: 'implicit' | 'pkce' = 'implicit') =>
  createClient(t.url, t.anonKey, { ...TEST_CLIENT_OPTIONS, auth: { ...TEST_CLIENT_OPTIONS.auth, flowType } });

/** signInWithSSO, then what the identity provider reads from the redirect. */
async function startSso(params: { domain: string } | { providerId: string }, flowType?: 'implicit' | 'pkce') {
  const sb = client(flowType);
  const { data, error } = await sb.auth.signInWithSSO({ ...params, options: { redirectTo: `${APP}/done` } });
  expect(error).toBeNull();
  return { sb, request: idp.readRequest(data!.url) };
}

/** Where the ACS sent the browser, with the fragment and query read. */
async function landing(res: Response) {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get('location')!);
  return { url, fragment: new URLSearchParams(url.hash.slice(1)), query: url.searchParams };
}

const spEntityId = () => `${base}/sso/saml/metadata`;
const acsUrl = () => `${base}/sso/saml/acs`;

describe('admin API /admin/sso/providers', () => {
  it('is for the service role only: a signed-in user gets 403, a bad token 401', async () => {
    const user = await t.signUp('sso-admin-probe@example.com');
    const res = await admin('GET', '/admin/sso/providers', undefined, user.token);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error_code: 'not_admin' });
    expect((await admin('GET', '/admin/sso/providers', undefined, t.anonKey)).status).toBe(403);
    expect((await admin('GET', '/admin/sso/providers', undefined, 'not.a.token')).status).toBe(401);
  });

  it('creates, lists, reads, updates and deletes a provider in GoTrue shapes', async () => {
    const other = otherIdp();
    const created = await admin('POST', '/admin/sso/providers', {
      type: 'saml',
      metadata_xml: other.metadata(),
      domains: ['Other.Example.com'],
      name_id_format: NAMEID_EMAIL,
    });
    expect(created.status).toBe(201);
    const provider = (await created.json()) as {
      id: string;
      saml: Record<string, unknown>;
      domains: Array<{ domain: string }>;
    };
    expect(provider.saml).toMatchObject({
      entity_id: other.entityId,
      metadata_xml: other.metadata(),
      name_id_format: NAMEID_EMAIL,
      attribute_mapping: {},
    });
    expect(provider.domains.map((d) => d.domain)).toEqual(['other.example.com']);

    const list = (await (await admin('GET', '/admin/sso/providers')).json()) as {
      items: Array<{ id: string; saml: { metadata_xml: string } }>;
    };
    const listed = list.items.find((p) => p.id === provider.id)!;
    expect(listed.saml.metadata_xml).toBe('');
    expect(list.items.some((p) => p.id === providerId)).toBe(true);

    const got = await admin('GET', `/admin/sso/providers/${provider.id}`);
    expect(((await got.json()) as { saml: { entity_id: string } }).saml.entity_id).toBe(other.entityId);

    const updated = await admin('PUT', `/admin/sso/providers/${provider.id}`, {
      domains: ['other.example.com', 'second.example.com'],
      attribute_mapping: { keys: { team: { name: 'team', default: 'none' } } },
    });
    expect(updated.status).toBe(200);
    const after = (await updated.json()) as typeof provider;
    expect(after.domains.map((d) => d.domain).sort()).toEqual(['other.example.com', 'second.example.com']);
    expect(after.saml.attribute_mapping).toEqual({ keys: { team: { name: 'team', default: 'none' } } });
    expect(after.saml.name_id_format).toBe(NAMEID_EMAIL);

    const mismatch = await admin('PUT', `/admin/sso/providers/${provider.id}`, {
      metadata_xml: otherIdp().metadata(),
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error_code: 'saml_entity_id_mismatch' });

    // GoTrue's resource_id: a key of the caller's, usable in the path as resource_<key>.
    const keyed = await admin('PUT', `/admin/sso/providers/${provider.id}`, { resource_id: 'acme-other' });
    expect(((await keyed.json()) as { resource_id?: string }).resource_id).toBe('acme-other');
    const byKey = await admin('GET', '/admin/sso/providers/resource_acme-other');
    expect(((await byKey.json()) as { id: string }).id).toBe(provider.id);

    const removed = await admin('DELETE', `/admin/sso/providers/${provider.id}`);
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { id: string }).id).toBe(provider.id);
    const gone = await admin('GET', `/admin/sso/providers/${provider.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error_code: 'sso_provider_not_found' });
  });

  it('refuses what GoTrue refuses', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ type: 'oidc', metadata_xml: otherIdp().metadata() }, 400, 'validation_failed'],
      [{ type: 'saml' }, 400, 'validation_failed'],
      [{ type: 'saml', metadata_url: 'http://idp.example.test/metadata' }, 400, 'validation_failed'],
      [{ type: 'saml', metadata_xml: '<not-xml' }, 400, 'validation_failed'],
      [{ type: 'saml', metadata_xml: otherIdp().metadata(), name_id_format: 'x' }, 400, 'validation_failed'],
      [{ type: 'saml', metadata_xml: idp.metadata() }, 422, 'saml_idp_already_exists'],
      [
        { type: 'saml', metadata_xml: otherIdp().metadata(), domains: ['ACME.example.com'] },
        400,
        'sso_domain_already_exists',
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await admin('POST', '/admin/sso/providers', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(await res.json()).toMatchObject({ error_code: code });
    }
    expect((await admin('GET', '/admin/sso/providers/not-a-uuid')).status).toBe(404);
    // An https metadata_url that does not answer: GoTrue's saml_metadata_fetch_failed.
    const unreachable = await admin('POST', '/admin/sso/providers', {
      type: 'saml',
      metadata_url: 'https://127.0.0.1:1/metadata',
    });
    expect(unreachable.status).toBe(400);
    expect(await unreachable.json()).toMatchObject({ error_code: 'saml_metadata_fetch_failed' });
  });
});

describe('SP metadata', () => {
  it('is served without an apikey, names our entity id, ACS and signing certificate', async () => {
    const res = await fetch(`${base}/sso/saml/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/xml/);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${spEntityId()}"`);
    expect(xml).toMatch(new RegExp(`AssertionConsumerService[^>]*Location="${acsUrl()}"`));
    expect(xml).toContain('X509Certificate');
    const download = await fetch(`${base}/sso/saml/metadata?download=true`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="metadata.xml"');
    expect(await download.text()).toBe(xml);
    // The certificate is derived from the key alone, so every start and instance publishes the same one.
    const certBody = (pem: string) => pem.replace(/-----[^-]+-----|\s+/g, '');
    const published = /<ds:X509Certificate>([^<]+)</.exec(xml)![1]!.replace(/\s+/g, '');
    const pkcs1 = createPrivateKey(spKey).export({ format: 'pem', type: 'pkcs1' }).toString();
    expect(published).toBe(certBody(samlCertificate(pkcs1)));
    expect(samlCertificate(pkcs1)).toBe(samlCertificate(pkcs1));
  });
});

describe('signInWithSSO', () => {
  it('by domain and by provider id answers the provider URL with a signed AuthnRequest', async () => {
    for (const params of [{ domain: 'acme.example.com' }, { providerId: providerId }]) {
      const { request } = await startSso(params);
      expect(request.signed).toBe(true);
      expect(request.acsUrl).toBe(acsUrl());
      expect(request.issuer).toBe(spEntityId());
      expect(request.relayState).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.id).toMatch(/^_[0-9a-f]{40}$/);
    }
  });

  it('an unknown domain or provider is 404 sso_provider_not_found; both or neither is 400', async () => {
    const sb = client();
    for (const params of [{ domain: 'nobody.example.com' }, { providerId: '00000000-0000-4000-8000-000000000000' }]) {
      const { error } = await sb.auth.signInWithSSO(params);
      expect(error?.status).toBe(404);
      expect(error?.code).toBe('sso_provider_not_found');
    }
    const both = await fetch(`${base}/sso`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'acme.example.com', provider_id: providerId }),
    });
    expect(both.status).toBe(400);
    const neither = await fetch(`${base}/sso`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(neither.status).toBe(400);
  });

  it('a disabled provider is 404 sso_provider_disabled, at /sso and at the ACS', async () => {
    const { request } = await startSso({ providerId });
    expect((await admin('PUT', `/admin/sso/providers/${providerId}`, { disabled: true })).status).toBe(200);
    try {
      const { error } = await client().auth.signInWithSSO({ domain: 'acme.example.com' });
      expect(error?.status).toBe(404);
      expect(error?.code).toBe('sso_provider_disabled');
      const response = idp.response({
        inResponseTo: request.id,
        acsUrl: acsUrl(),
        audience: spEntityId(),
        nameId: 'employee-4711',
        attributes: { email: 'jane.doe@acme.example.com' },
      });
      const { query, fragment } = await landing(await postToAcs(acsUrl(), response, request.relayState));
      expect(query.get('error_code')).toBe('sso_provider_disabled');
      expect(fragment.get('access_token')).toBeNull();
    } finally {
      await admin('PUT', `/admin/sso/providers/${providerId}`, { disabled: false });
    }
  });

  it('settings say SAML is on', async () => {
    const res = await fetch(`${base}/settings`, { headers: { apikey: t.anonKey } });
    expect(((await res.json()) as { saml_enabled: boolean }).saml_enabled).toBe(true);
  });
});

describe('the ACS', () => {
  const answer = (request: { id: string }, extra: Partial<Parameters<FakeSamlIdp['response']>[0]> = {}) =>
    idp.response({
      inResponseTo: request.id,
      acsUrl: acsUrl(),
      audience: spEntityId(),
      nameId: 'employee-4711',
      attributes: { email: 'Jane.Doe@acme.example.com', displayName: 'Jane Doe' },
      ...extra,
    });

  it('signs the user in (implicit): tokens in the fragment, an SSO user apart from the e-mail user', async () => {
    const emailUser = await t.signUp('jane.doe@acme.example.com');
    const { request } = await startSso({ domain: 'acme.example.com' });
    const { url, fragment } = await landing(await postToAcs(acsUrl(), answer(request), request.relayState));
    expect(`${url.origin}${url.pathname}`).toBe(`${APP}/done`);
    const token = fragment.get('access_token')!;
    expect(token).toBeTruthy();
    expect(fragment.get('refresh_token')).toBeTruthy();
    const { data, error } = await t.client(token).auth.getUser(token);
    expect(error).toBeNull();
    const user = data.user!;
    expect(user.id).not.toBe(emailUser.id);
    expect(user.email).toBe('jane.doe@acme.example.com');
    expect(user.is_sso_user).toBe(true);
    expect(user.app_metadata.provider).toBe(`sso:${providerId}`);
    expect(user.identities?.[0]).toMatchObject({ provider: `sso:${providerId}`, id: 'employee-4711' });
    expect(user.user_metadata).toMatchObject({ sub: 'employee-4711', custom_claims: { name: 'Jane Doe' } });

    // The same subject again: the same account.
    const again = await startSso({ providerId });
    const second = await landing(await postToAcs(acsUrl(), answer(again.request), again.request.relayState));
    const { data: d2 } = await t.client().auth.getUser(second.fragment.get('access_token')!);
    expect(d2.user!.id).toBe(user.id);
    // The e-mail user still signs in with the password: the SSO account took nothing from it.
    const { error: pwError } = await t
      .client()
      .auth.signInWithPassword({ email: 'jane.doe@acme.example.com', password: 'correct-horse-battery-9' });
    expect(pwError).toBeNull();
  });

  it('signs the user in (PKCE): ?code= exchanged by supabase-js for a session', async () => {
    const { sb, request } = await startSso({ domain: 'acme.example.com' }, 'pkce');
    const response = idp.response({
      inResponseTo: request.id,
      acsUrl: acsUrl(),
      audience: spEntityId(),
      nameId: 'Pkce.User@acme.example.com',
      nameIdFormat: NAMEID_EMAIL,
    });
    const { url, fragment } = await landing(await postToAcs(acsUrl(), response, request.relayState));
    expect(fragment.get('access_token')).toBeNull();
    const code = url.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user!.email).toBe('pkce.user@acme.example.com');
    expect(data.user!.identities?.[0]?.id).toBe('pkce.user@acme.example.com');
    const amr = JSON.parse(Buffer.from(data.session!.access_token.split('.')[1]!, 'base64url').toString()).amr;
    expect(amr[0].method).toBe('sso/saml');
  });

  /** A refused answer: back to APP_URL with GoTrue's error parameters, no session. */
  async function refused(res: Response, code: string, message?: RegExp) {
    const { url, fragment, query } = await landing(res);
    expect(url.origin).toBe(APP);
    expect(fragment.get('access_token')).toBeNull();
    expect(query.get('code')).toBeNull();
    expect(query.get('error_code')).toBe(code);
    if (message) expect(query.get('error_description')).toMatch(message);
  }

  it('decrypts an assertion encrypted to the certificate of our metadata (AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS)', async () => {
    const metadata = await (await fetch(`${base}/sso/saml/metadata`)).text();
    const encryption = /<KeyDescriptor use="encryption">[\s\S]*?<ds:X509Certificate>([^<]+)</.exec(metadata);
    expect(encryption).not.toBeNull();
    const spCert = `-----BEGIN CERTIFICATE-----\n${encryption![1]!.replace(/\s+/g, '')}\n-----END CERTIFICATE-----\n`;
    const { request } = await startSso({ providerId });
    const response = await idp.encryptedResponse(
      {
        inResponseTo: request.id,
        acsUrl: acsUrl(),
        audience: spEntityId(),
        nameId: 'encrypted-user',
        attributes: { mail: 'secret.agent@acme.example.com' },
      },
      spCert,
    );
    expect(Buffer.from(response, 'base64').toString()).not.toContain('secret.agent');
    const { fragment } = await landing(await postToAcs(acsUrl(), response, request.relayState));
    const { data } = await t.client().auth.getUser(fragment.get('access_token')!);
    expect(data.user!.email).toBe('secret.agent@acme.example.com');
  });

  it('refuses an unsigned response', async () => {
    const { request } = await startSso({ providerId });
    await refused(
      await postToAcs(acsUrl(), answer(request, { sign: 'none' }), request.relayState),
      'validation_failed',
      /signature/i,
    );
  });

  it('accepts a response signed as a whole, refuses one signed with a key not in the metadata', async () => {
    const ok = await startSso({ providerId });
    const { fragment } = await landing(
      await postToAcs(acsUrl(), answer(ok.request, { sign: 'response' }), ok.request.relayState),
    );
    expect(fragment.get('access_token')).toBeTruthy();
    const stranger = createLocalCertificates({ hosts: ['idp.example.test'] });
    for (const sign of ['assertion', 'response'] as const) {
      const { request } = await startSso({ providerId });
      const forged = answer(request, { sign, signingKey: { key: stranger.key, cert: stranger.cert } });
      await refused(await postToAcs(acsUrl(), forged, request.relayState), 'validation_failed', /signature/i);
    }
  });

  it('refuses a wrong audience, an expired assertion, a wrong recipient and an issuer that is not the provider', async () => {
    const past = new Date(Date.now() - 3_600_000);
    const cases: Array<[Partial<Parameters<FakeSamlIdp['response']>[0]>, RegExp]> = [
      [{ audience: 'https://someone-else.example.test/metadata' }, /audience/i],
      // node-saml looks at the subject confirmation's NotOnOrAfter first.
      [{ notBefore: new Date(past.getTime() - 600_000), notOnOrAfter: past }, /expired|subject confirmation/i],
      [{ recipient: 'https://someone-else.example.test/acs' }, /Recipient/],
      [{ issuer: 'https://another-idp.example.test' }, /issuer/i],
    ];
    for (const [extra, message] of cases) {
      const { request } = await startSso({ providerId });
      await refused(
        await postToAcs(acsUrl(), answer(request, extra), request.relayState),
        'validation_failed',
        message,
      );
    }
  });

  it('refuses a transient NameID without a subject-id attribute', async () => {
    const { request } = await startSso({ providerId });
    const res = await postToAcs(acsUrl(), answer(request, { nameIdFormat: NAMEID_TRANSIENT }), request.relayState);
    await refused(res, 'saml_assertion_no_user_id');
  });

  it('takes an answer once: a replay finds no relay state', async () => {
    const { request } = await startSso({ providerId });
    const response = answer(request);
    const first = await landing(await postToAcs(acsUrl(), response, request.relayState));
    expect(first.fragment.get('access_token')).toBeTruthy();
    await refused(await postToAcs(acsUrl(), response, request.relayState), 'saml_relay_state_not_found');
  });

  it('refuses an answer after AUTH_SAML_RELAY_STATE_VALIDITY_SECONDS (422 saml_relay_state_expired)', async () => {
    const { request } = await startSso({ providerId });
    await t.db.sql`update auth.saml_relay_states set created_at = now() - interval '121 seconds'
      where id = ${request.relayState}`;
    await refused(await postToAcs(acsUrl(), answer(request), request.relayState), 'saml_relay_state_expired');
  });

  it('refuses an answer to another request (InResponseTo) and an unknown or missing relay state', async () => {
    const a = await startSso({ providerId });
    const b = await startSso({ providerId });
    // b's answer posted with a's relay state: InResponseTo names a request that relay state did not send.
    await refused(
      await postToAcs(acsUrl(), answer(b.request), a.request.relayState),
      'validation_failed',
      /InResponseTo/,
    );
    await refused(
      await postToAcs(acsUrl(), answer(b.request), '00000000-0000-4000-8000-000000000000'),
      'saml_relay_state_not_found',
    );
    await refused(await postToAcs(acsUrl(), answer(b.request), ''), 'validation_failed', /RelayState/);
  });
});

describe('with AUTH_SAML_ENABLED off', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await off?.stop();
  });

  it('every SAML path answers GoTrue disabled error', async () => {
    const { error } = await createClient(off.url, off.anonKey, TEST_CLIENT_OPTIONS).auth.signInWithSSO({
      domain: 'acme.example.com',
    });
    expect(error?.status).toBe(404);
    expect(error?.code).toBe('saml_provider_disabled');
    const requests: Array<[string, string]> = [
      ['GET', '/admin/sso/providers'],
      ['POST', '/admin/sso/providers'],
      ['GET', '/sso/saml/metadata'],
      ['POST', '/sso/saml/acs'],
    ];
    for (const [method, path] of requests) {
      const res = await fetch(`${off.url}/auth/v1${path}`, {
        method,
        headers: { apikey: off.anonKey, authorization: `Bearer ${off.serviceRoleKey}` },
      });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ error_code: 'saml_provider_disabled', msg: 'SAML 2.0 is disabled' });
    }
    const settings = await fetch(`${off.url}/auth/v1/settings`, { headers: { apikey: off.anonKey } });
    expect(((await settings.json()) as { saml_enabled: boolean }).saml_enabled).toBe(false);
  });
});
