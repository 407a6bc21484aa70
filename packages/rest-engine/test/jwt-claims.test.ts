// The JWT authenticator's reading of claims and its 401 answers, as PostgREST's: `aud` absent, null or [] passes,
// a string or strings must name the configured audience, anything else is refused with or without one; exp, nbf
// and iat must be numbers; an empty or malformed bearer token is PGRST301; every 401 names its scheme in
// WWW-Authenticate, also the database's refusal of the anonymous role.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler, createJwtAuthenticator, createRestEngine } from '../src/index.js';
import { type Harness, setup } from './helpers.js';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

let h: Harness;
beforeAll(async () => {
  h = await setup();
});
afterAll(async () => {
  await h?.close();
});

/** One request through the fetch adapter with the authenticator: status, WWW-Authenticate and the body. */
async function call(audience: string | undefined, authorization: string | null, path = '/tasks?select=id&limit=1') {
  const handle = createFetchHandler(h.engine, { authenticate: createJwtAuthenticator({ secret: SECRET, audience }) });
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  const res = await handle(new Request(`http://x${path}`, { headers }));
  return { status: res.status, challenge: res.headers.get('www-authenticate'), json: await res.json() };
}
const bearer = async (claims: Record<string, unknown>) => `Bearer ${await sign({ role: 'authenticated', ...claims })}`;
const refused = (message: string, code = 'PGRST303') => ({
  status: 401,
  challenge: `Bearer error="invalid_token", error_description="${message}"`,
  json: { code, message, details: null, hint: null },
});
const AUD_TYPE = "The JWT 'aud' claim must be a string or an array of strings";

describe('aud with an audience configured', () => {
  it.each([['api'], [['other', 'api']], [[]], [null]])('aud %j passes', async (aud) => {
    expect((await call('api', await bearer({ aud }))).status).toBe(200);
  });
  it.each([['other'], [''], [['other']], [['x', 'y']]])('aud %j is not in the audience', async (aud) => {
    expect(await call('api', await bearer({ aud }))).toMatchObject(refused('JWT not in audience'));
  });
  it.each([[7], [{ a: 'api' }], [['api', 7]], [true]])('aud %j is refused for its type', async (aud) => {
    expect(await call('api', await bearer({ aud }))).toMatchObject(refused(AUD_TYPE));
  });
});

describe('aud without an audience', () => {
  it.each([['any'], [''], [['a', 'b']], [[]], [null]])('aud %j passes', async (aud) => {
    expect((await call(undefined, await bearer({ aud }))).status).toBe(200);
  });
  it('aud of another type is still refused', async () => {
    expect(await call(undefined, await bearer({ aud: 7 }))).toMatchObject(refused(AUD_TYPE));
  });
});

describe('time claims and malformed tokens', () => {
  it.each(['exp', 'nbf', 'iat'])('%s that is not a number', async (claim) => {
    expect(await call(undefined, await bearer({ [claim]: 'soon' }))).toMatchObject(
      refused(`The JWT '${claim}' claim must be a number`),
    );
  });
  it('iat in the future, beyond the clock skew', async () => {
    const iat = Math.floor(Date.now() / 1000) + 3600;
    expect(await call(undefined, await bearer({ iat }))).toMatchObject(refused('JWT issued at future'));
  });
  it('an empty bearer token', async () => {
    expect(await call(undefined, 'Bearer ')).toMatchObject(
      refused('Empty JWT is sent in Authorization header', 'PGRST301'),
    );
  });
  it('a token of two parts', async () => {
    expect(await call(undefined, 'Bearer abc.def')).toMatchObject(
      refused('Expected 3 parts in JWT; got 2', 'PGRST301'),
    );
  });
});

// PostgREST's words for tokens that cannot be verified (suite: ErrorSpec "JWT Errors" and "Test JWT Token format
// errors").
describe('tokens that cannot be verified', () => {
  const unverified = (message: string, details: string | null, code = 'PGRST301') => ({
    ...refused(message, code),
    json: { code, message, details, hint: null },
  });
  it('signed with another secret', async () => {
    const forged = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('another-secret-of-at-least-thirty-two-characters'));
    expect(await call(undefined, `Bearer ${forged}`)).toMatchObject(
      unverified('No suitable key or wrong key type', 'None of the keys was able to decode the JWT'),
    );
  });
  it("unsecured (alg 'none')", async () => {
    const header = Buffer.from('{"typ":"JWT","alg":"none"}').toString('base64url');
    expect(await call(undefined, `Bearer ${header}.e30.`)).toMatchObject(
      unverified('Wrong or unsupported encoding algorithm', "JWT is unsecured but expected 'alg' was not 'none'"),
    );
  });
  it('three parts that are not a token', async () => {
    expect(await call(undefined, 'Bearer quifquirndsjagnrgniur.fonvoienqhhdj.iuqvnvhojah')).toMatchObject(
      unverified('JWT cryptographic operation failed', null),
    );
  });
});

describe("the database's refusal of the anonymous role", () => {
  it('401 with WWW-Authenticate: Bearer', async () => {
    const r = await call(undefined, null, '/notes');
    expect(r).toMatchObject({ status: 401, challenge: 'Bearer', json: { code: '42501' } });
  });
});

// PostgREST's client-error-verbosity (suite: ErrorSpec "Test client-error-verbosity config").
describe('clientErrorVerbosity: minimal', () => {
  it('answers errors with their code and message only, the adapters refusals too', async () => {
    const engine = await createRestEngine({ sql: h.sql, schemas: ['public'], clientErrorVerbosity: 'minimal' });
    try {
      const missing = await engine.handle({ method: 'GET', path: '/nope', search: '', headers: {} });
      expect(JSON.parse(missing.body!)).toEqual({
        code: 'PGRST205',
        message: "Could not find the table 'public.nope' in the schema cache",
      });
      const handle = createFetchHandler(engine, { authenticate: createJwtAuthenticator({ secret: SECRET }) });
      const forged = await handle(new Request('http://x/tasks', { headers: { authorization: 'Bearer a.b.c' } }));
      expect(Object.keys((await forged.json()) as object).sort()).toEqual(['code', 'message']);
    } finally {
      await engine.close();
    }
  });
});
