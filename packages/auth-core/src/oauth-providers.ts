// OpenID Connect providers (google, azure, apple, keycloak, or any issuer): their settings and their discovered
// configurations. Protocol work (discovery, authorization URLs, the code grant, ID token checks) is openid-client's.
import * as oidc from 'openid-client';
import { authErrors } from './errors.js';

export const OAUTH_PROVIDERS = ['google', 'azure', 'apple', 'keycloak'] as const;
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

export interface OAuthProviderSettings {
  name: OAuthProviderName;
  clientId: string;
  clientSecret?: string;
  /** The issuer discovered at {issuer}/.well-known/openid-configuration. */
  issuer: string;
}

/** Issuers of the providers that have one fixed issuer; keycloak (a realm's URL) and azure tenants need _URL. */
export const DEFAULT_ISSUERS: Partial<Record<OAuthProviderName, string>> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  azure: 'https://login.microsoftonline.com/common/v2.0',
};

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

export function createProviderRegistry(providers: readonly OAuthProviderSettings[]) {
  const byName = new Map(providers.map((p) => [p.name as string, p]));
  const discovered = new Map<string, Promise<oidc.Configuration>>();

  /** The provider's configuration, discovered once; a failed discovery is retried by the next request. */
  function configuration(settings: OAuthProviderSettings): Promise<oidc.Configuration> {
    let pending = discovered.get(settings.name);
    if (!pending) {
      const issuer = new URL(settings.issuer);
      // Plain HTTP only for a provider on this machine (tests, a local Keycloak); anything else must be HTTPS.
      const options =
        issuer.protocol === 'http:' && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {};
      pending = oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, options);
      pending.catch(() => discovered.delete(settings.name));
      discovered.set(settings.name, pending);
    }
    return pending;
  }

  return {
    enabled: (name: string) => byName.has(name),
    names: () => [...byName.keys()],
    /** The provider by name; unknown or not configured answers GoTrue's 400 for a disabled provider. */
    get(name: unknown): { settings: OAuthProviderSettings; configuration: () => Promise<oidc.Configuration> } {
      const settings = typeof name === 'string' ? byName.get(name.toLowerCase()) : undefined;
      if (!settings) throw authErrors.providerDisabled(typeof name === 'string' ? name : '');
      return { settings, configuration: () => configuration(settings) };
    },
  };
}

export type ProviderRegistry = ReturnType<typeof createProviderRegistry>;
