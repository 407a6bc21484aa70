// SAML 2.0 SSO (docs/auth.md, "SAML SSO"): GoTrue's GOTRUE_SAML_* under our AUTH_ prefix. Off by default (then
// every /sso path answers GoTrue's saml_provider_disabled); on, it needs the SP's RSA key, as PEM or as GoTrue's
// base64 of the DER (PKCS#1 or PKCS#8).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import * as v from 'valibot';
import { bool, positiveInt } from './fields.js';

/** The key as a KeyObject, from PEM or base64 DER; undefined when it is neither, or not RSA of 2048+ bits. */
export function parseSamlPrivateKey(text: string): KeyObject | undefined {
  const attempts: Array<() => KeyObject> = [() => createPrivateKey(text.replace(/\\n/g, '\n'))];
  const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
  for (const type of ['pkcs1', 'pkcs8'] as const) {
    attempts.push(() => createPrivateKey({ key: der, format: 'der', type }));
  }
  for (const attempt of attempts) {
    try {
      const key = attempt();
      if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return undefined;
      return key;
    } catch {
      // the next form
    }
  }
  return undefined;
}

const samlKey = v.pipe(
  v.string(),
  v.check((s) => parseSamlPrivateKey(s) !== undefined, 'must be an RSA private key of 2048+ bits, PEM or base64 DER'),
);

export const samlSettings = {
  AUTH_SAML_ENABLED: v.optional(bool, 'false'),
  AUTH_SAML_PRIVATE_KEY: v.optional(samlKey),
  AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS: v.optional(bool, 'false'),
  // GoTrue's default: an identity provider has two minutes to answer an AuthnRequest.
  AUTH_SAML_RELAY_STATE_VALIDITY_SECONDS: v.optional(positiveInt, '120'),
};

/** A setting SAML needs but lacks, as the start's one-line error; undefined when all is there. */
export function samlConfigProblem(config: { AUTH_SAML_ENABLED: boolean; AUTH_SAML_PRIVATE_KEY?: string }) {
  if (config.AUTH_SAML_ENABLED && !config.AUTH_SAML_PRIVATE_KEY)
    return 'AUTH_SAML_PRIVATE_KEY must be set when AUTH_SAML_ENABLED=true';
  return undefined;
}
