import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';
import { relyingPartyOf } from './webauthn.js';

describe('the WebAuthn relying party', () => {
  it('defaults to APP_URL: its host as RP ID, its origin as the one origin; everything off', () => {
    const config = loadConfig({ APP_URL: 'https://yard.example.com/app' });
    expect(config.AUTH_PASSKEYS_ENABLED).toBe(false);
    expect(config.AUTH_MFA_WEBAUTHN_ENROLL_ENABLED).toBe(false);
    expect(relyingPartyOf(config)).toEqual({
      id: 'yard.example.com',
      name: 'auction-ops',
      origins: ['https://yard.example.com'],
      challengeSeconds: 300,
    });
  });

  it('takes a parent domain as RP ID for several origins under it', () => {
    const config = loadConfig({
      AUTH_WEBAUTHN_RP_ID: 'example.com',
      AUTH_WEBAUTHN_RP_ORIGINS: 'https://yard.example.com, https://admin.example.com',
    });
    expect(relyingPartyOf(config)).toMatchObject({
      id: 'example.com',
      origins: ['https://yard.example.com', 'https://admin.example.com'],
    });
  });

  it('says which origin an RP ID cannot serve', () => {
    const config = loadConfig({ AUTH_WEBAUTHN_RP_ID: 'example.com', AUTH_WEBAUTHN_RP_ORIGINS: 'https://example.org' });
    expect(relyingPartyOf(config)).toBe(
      'AUTH_WEBAUTHN_RP_ID="example.com" is neither the host of https://example.org nor a parent domain of it',
    );
  });

  it.each([
    ['AUTH_WEBAUTHN_RP_ID', 'https://example.com', /must be a domain name/],
    ['AUTH_WEBAUTHN_RP_ID', 'example.com:443', /must be a domain name/],
    ['AUTH_WEBAUTHN_RP_ORIGINS', 'https://example.com/login', /must be comma-separated origins/],
    ['AUTH_WEBAUTHN_RP_ORIGINS', 'ftp://example.com', /must be comma-separated origins/],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
