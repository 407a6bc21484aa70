// The OAuth 2.1 authorization server (AUTH_OAUTH_SERVER_ENABLED): the client registry, the authorization requests
// with consent, and the token endpoint, over one database.
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import { createOAuthAuthorizations, type OAuthServerSettings } from './oauth-authorizations.js';
import { createOAuthClientRegistry } from './oauth-clients.js';
import { createOAuthTokenGrant } from './oauth-token-grant.js';

export function createOAuthServer(sql: postgres.Sql, service: AuthService, settings: OAuthServerSettings) {
  const clients = createOAuthClientRegistry(sql);
  return {
    clients,
    authorizations: createOAuthAuthorizations(sql, clients, settings),
    tokens: createOAuthTokenGrant(sql, service),
  };
}

export type OAuthServer = ReturnType<typeof createOAuthServer>;
