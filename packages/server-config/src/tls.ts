// Transport: HTTPS served by the process itself (certificate and key files, reloaded on SIGHUP) and the one switch
// that lets a non-loopback listener speak plain HTTP without a trusted proxy in front (docs/https.md).
import * as v from 'valibot';
import { bool, nonEmpty, wholeNumber } from './fields.js';

export const tlsSettings = {
  TLS_CERT_FILE: v.optional(nonEmpty),
  TLS_KEY_FILE: v.optional(nonEmpty),
  ALLOW_INSECURE_HTTP: v.optional(bool, 'false'),
  HSTS_MAX_AGE_SECONDS: v.optional(wholeNumber, '31536000'),
};
