// The OpenID providers from configuration (AUTH_EXTERNAL_<PROVIDER>_*), the OAuth sign-in service and the id_token
// grant over them.
import {
  type AuthService,
  createIdTokenGrant,
  createOAuthService,
  createProviderRegistry,
  DEFAULT_ISSUERS,
  type IdTokenGrant,
  OAUTH_PROVIDERS,
  type OAuthProviderSettings,
  type OAuthService,
  type ProviderRegistry,
} from '@auction-ops/auth-core';
import type { Config } from '@auction-ops/server-config';
import type { ServerContext } from '../context.js';

/** Each provider with a client id; one without an issuer (keycloak has no default) stops the start. */
function providerSettings(config: Config): OAuthProviderSettings[] {
  return OAUTH_PROVIDERS.flatMap((name) => {
    const prefix = `AUTH_EXTERNAL_${name.toUpperCase() as Uppercase<typeof name>}` as const;
    const clientId = config[`${prefix}_CLIENT_ID`];
    if (!clientId) return [];
    const issuer = config[`${prefix}_URL`] ?? DEFAULT_ISSUERS[name];
    if (!issuer) throw new Error(`${prefix}_URL must be set: the issuer URL of the ${name} provider`);
    return [{ name, clientId, clientSecret: config[`${prefix}_SECRET`], issuer }];
  });
}

export function createOAuthServices(
  ctx: ServerContext,
  service: AuthService,
): { oauth: OAuthService; providers: ProviderRegistry; idToken: IdTokenGrant } {
  const { config } = ctx;
  const providers = createProviderRegistry(providerSettings(config));
  const accounts = { disableSignup: config.AUTH_DISABLE_SIGNUP, autoconfirm: config.AUTH_AUTOCONFIRM };
  const oauth = createOAuthService(ctx.ownerRequestSql, service, providers, {
    publicUrl: config.PUBLIC_URL,
    ...accounts,
  });
  return { oauth, providers, idToken: createIdTokenGrant(ctx.ownerRequestSql, service, providers, accounts) };
}
