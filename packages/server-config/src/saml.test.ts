import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';
import { parseSamlPrivateKey } from './saml.js';

const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;

describe('SAML settings', () => {
  it('are off by default, with GoTrue defaults', () => {
    const config = loadConfig({});
    expect(config.AUTH_SAML_ENABLED).toBe(false);
    expect(config.AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS).toBe(false);
    expect(config.AUTH_SAML_RELAY_STATE_VALIDITY_SECONDS).toBe(120);
  });

  it('take the key as PKCS#8 or PKCS#1 PEM, or as base64 DER (GoTrue form)', () => {
    const key = rsa(2048);
    const forms = [
      key.export({ format: 'pem', type: 'pkcs8' }).toString(),
      key.export({ format: 'pem', type: 'pkcs1' }).toString(),
      key.export({ format: 'der', type: 'pkcs1' }).toString('base64'),
      key.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    ];
    const modulus = key.export({ format: 'jwk' }).n;
    for (const form of forms) {
      const config = loadConfig({ AUTH_SAML_ENABLED: 'true', AUTH_SAML_PRIVATE_KEY: form });
      expect(parseSamlPrivateKey(config.AUTH_SAML_PRIVATE_KEY!)?.export({ format: 'jwk' }).n).toBe(modulus);
    }
  });

  it('refuse to start on without a key, and a key that is not RSA of 2048+ bits, without printing it', () => {
    expect(() => loadConfig({ AUTH_SAML_ENABLED: 'true' })).toThrow(
      'invalid configuration: AUTH_SAML_PRIVATE_KEY must be set when AUTH_SAML_ENABLED=true',
    );
    const small = rsa(1024).export({ format: 'pem', type: 'pkcs8' }).toString();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    for (const bad of [small, ec, 'not a key']) {
      let message = '';
      try {
        loadConfig({ AUTH_SAML_ENABLED: 'true', AUTH_SAML_PRIVATE_KEY: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^invalid configuration: AUTH_SAML_PRIVATE_KEY=\(value not shown\) must be an RSA/);
      expect(message).not.toContain(bad.slice(0, 40));
    }
    expect(() => loadConfig({ AUTH_SAML_RELAY_STATE_VALIDITY_SECONDS: '0' })).toThrow(/at least 1/);
  });
});
