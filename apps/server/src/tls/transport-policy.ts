// How this process may speak to clients, decided once at start from HOST, PUBLIC_URL, the TLS files and the trusted
// proxies: HTTPS itself, plain HTTP behind a trusted TLS-terminating proxy, plain HTTP for local development, or
// (only when asked for) plain HTTP in the open. Every other combination refuses to start (docs/https.md).
import { isIP } from 'node:net';
import type { Config } from '@auction-ops/server-config';

export type Transport =
  /** TLS_CERT_FILE and TLS_KEY_FILE: every request arrives over TLS. */
  | { kind: 'tls' }
  /** Plain HTTP from a proxy: a request counts as HTTPS only by X-Forwarded-Proto from a trusted proxy. */
  | { kind: 'proxied' }
  /** Loopback only with an http:// PUBLIC_URL: the default quick start. */
  | { kind: 'local' }
  /** ALLOW_INSECURE_HTTP=true: plain HTTP accepted from anywhere. */
  | { kind: 'insecure' };

export class InsecureTransportError extends Error {
  override name = 'InsecureTransportError';
}

/** Names and addresses that reach only this machine. */
function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || (h.startsWith('::ffff:') && h.slice(7).startsWith('127.'));
  return false;
}

export function transportOf(config: Config): Transport {
  if (Boolean(config.TLS_CERT_FILE) !== Boolean(config.TLS_KEY_FILE))
    throw new InsecureTransportError(
      `refusing to start: ${config.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} is missing ` +
        '(HTTPS needs both the certificate and its key)',
    );
  if (config.TLS_CERT_FILE) return { kind: 'tls' };
  if (config.ALLOW_INSECURE_HTTP) return { kind: 'insecure' };
  if (config.TRUSTED_PROXY_CIDRS.trim() !== '') return { kind: 'proxied' };
  if (isLoopbackHost(config.HOST)) {
    // An https:// PUBLIC_URL says clients come through TLS somewhere; without a trusted proxy none can prove it.
    return config.PUBLIC_URL.startsWith('http://') ? { kind: 'local' } : { kind: 'proxied' };
  }
  throw new InsecureTransportError(
    `refusing to start: HOST=${config.HOST} is not loopback and the server would speak plain HTTP; set ` +
      'TLS_CERT_FILE and TLS_KEY_FILE, or TRUSTED_PROXY_CIDRS for a TLS-terminating proxy, or ALLOW_INSECURE_HTTP=true',
  );
}
