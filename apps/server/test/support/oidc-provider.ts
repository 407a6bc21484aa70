// A real OpenID provider on loopback for the OAuth tests: the `oidc-provider` package with its development login
// page (any login, any password). The login name is the account: its e-mail is `<login>@idp.example.test`, marked
// verified unless the login starts with `unverified`; `login` may also be a full address; a login that starts with
// `noemail` has a name and no address. Its signing key is ours, so a test can mint the ID token an app would get
// from it (signInWithIdToken) without a browser. By default the profile and e-mail are in the ID token; with
// `claimsInIdToken: false` (node-oidc-provider's own default) the ID token has only `sub` and userinfo has the rest.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { startTestServer, type TestServer } from './test-server.js';

export const OIDC_CLIENT_ID = 'auction-ops';
export const OIDC_CLIENT_SECRET = 'a-test-client-secret-of-some-length';

export interface FakeOidcProvider {
  issuer: string;
  /** Registers the client with the server's callback URL; discovery only happens at the first sign-in. */
  register(callbackUrl: string): void;
  /** An ID token signed with the provider's published key: iss, aud (our client), iat and a 10-minute exp
   *  unless `claims` says otherwise. */
  signIdToken(claims: JWTPayload): Promise<string>;
  stop(): Promise<void>;
}

function accountClaims(login: string) {
  if (login.startsWith('noemail')) return { sub: login, name: `Name of ${login}` };
  const email = login.includes('@') ? login : `${login}@idp.example.test`;
  return { sub: login, email, email_verified: !login.startsWith('unverified'), name: `Name of ${login}` };
}

export async function startOidcProvider(options: { claimsInIdToken?: boolean } = {}): Promise<FakeOidcProvider> {
  let handler: ((req: never, res: never) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req as never, res as never);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'fixture-key', alg: 'RS256', use: 'sig' };
  return {
    issuer,
    signIdToken(claims) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: OIDC_CLIENT_ID, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: signingKey.kid })
        .sign(privateKey);
    },
    register(callbackUrl) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: OIDC_CLIENT_ID,
            client_secret: OIDC_CLIENT_SECRET,
            redirect_uris: [callbackUrl],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        jwks: { keys: [signingKey] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => accountClaims(id) }),
        pkce: { required: () => true },
        // false puts the profile and e-mail in the ID token, as Google, Microsoft and Keycloak do; true keeps them
        // for userinfo, as OpenID Core 5.4 reads scopes.
        conformIdTokenClaims: options.claimsInIdToken === false,
      });
      handler = provider.callback() as never;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A test server with the provider configured as keycloak (discovered from its issuer), both stopped together. */
export async function startServerWithProvider(
  env: Record<string, string> = {},
  options: { claimsInIdToken?: boolean } = {},
): Promise<{ t: TestServer; idp: FakeOidcProvider; stop(): Promise<void> }> {
  const idp = await startOidcProvider(options);
  const t = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: OIDC_CLIENT_ID,
    AUTH_EXTERNAL_KEYCLOAK_SECRET: OIDC_CLIENT_SECRET,
    AUTH_EXTERNAL_KEYCLOAK_URL: idp.issuer,
    ...env,
  });
  idp.register(`${t.url}/auth/v1/callback`);
  return {
    t,
    idp,
    async stop() {
      await t.stop();
      await idp.stop();
    },
  };
}
