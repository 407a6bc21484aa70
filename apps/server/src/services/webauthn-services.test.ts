import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@auction-ops/server-config';
import { createWebAuthnServices } from './webauthn-services.js';

describe('a relying party that cannot serve its origins', () => {
  const mismatched = { AUTH_WEBAUTHN_RP_ID: 'example.com', AUTH_WEBAUTHN_RP_ORIGINS: 'https://example.org' };
  // The services only read settings when built: no database is needed to see the start refused or allowed.
  const build = (env: Record<string, string>) => () =>
    createWebAuthnServices({ config: loadConfig(env), ownerRequestSql: null } as never, {} as never);

  it('stops the start when passkeys or WebAuthn factors are on', () => {
    expect(build({ ...mismatched, AUTH_PASSKEYS_ENABLED: 'true' })).toThrow(ConfigError);
    expect(build({ ...mismatched, AUTH_MFA_WEBAUTHN_VERIFY_ENABLED: 'true' })).toThrow(/is neither the host of/);
  });

  it('is no reason to refuse the start while both are off', () => {
    expect(build(mismatched)().passkeys.enabled).toBe(false);
  });
});
