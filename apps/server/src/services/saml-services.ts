// SAML SSO from configuration (AUTH_SAML_*): the service provider's key, a certificate of it for our metadata, the
// SSO service and the admin registry of identity providers. Undefined while AUTH_SAML_ENABLED is off.
import {
  type AuthService,
  createSamlService,
  createSsoProviders,
  type SamlService,
  type SsoProviders,
} from '@auction-ops/auth-core';
import forge from 'node-forge';
import { parseSamlPrivateKey } from '@auction-ops/server-config';
import type { ServerContext } from '../context.js';

export interface SamlServices {
  saml: SamlService;
  ssoProviders: SsoProviders;
}

/**
 * A self-signed certificate of the key that is the same on every start and every instance (fixed serial, subject
 * and validity; PKCS#1 v1.5 signatures are deterministic), as GoTrue makes it: the metadata identity providers
 * imported stays true.
 */
export function samlCertificate(privateKeyPem: string): string {
  const key = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(0);
  cert.validity.notAfter = new Date(Date.UTC(2170, 0, 1));
  const subject = [{ name: 'commonName', value: 'SAML Signing Certificate' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

export function createSamlServices(ctx: ServerContext, service: AuthService): SamlServices | undefined {
  const { config } = ctx;
  if (!config.AUTH_SAML_ENABLED || !config.AUTH_SAML_PRIVATE_KEY) return undefined;
  const key = parseSamlPrivateKey(config.AUTH_SAML_PRIVATE_KEY)!;
  // node-forge reads PKCS#1; node-saml takes either.
  const privateKeyPem = key.export({ format: 'pem', type: 'pkcs1' }).toString();
  return {
    saml: createSamlService(ctx.ownerRequestSql, service, {
      publicUrl: config.PUBLIC_URL,
      privateKeyPem,
      certificatePem: samlCertificate(privateKeyPem),
      allowEncryptedAssertions: config.AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS,
      relayStateSeconds: config.AUTH_SAML_RELAY_STATE_VALIDITY_SECONDS,
      disableSignup: config.AUTH_DISABLE_SIGNUP,
    }),
    ssoProviders: createSsoProviders(ctx.ownerRequestSql),
  };
}
