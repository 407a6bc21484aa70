// Request signing: the interface's `X-Webhook-Signature: sha256=<hex>` over the raw body, and the Standard Webhooks
// `webhook-signature: v1,<base64>` over `id.timestamp.body`. During a rotation every live secret signs, so the
// receiver accepts the request with either its old or its new secret.
import { createHmac } from 'node:crypto';

interface SignedHeaders {
  'x-webhook-signature': string;
  'webhook-signature': string;
}

/**
 * The HMAC key of the Standard Webhooks scheme: a `whsec_<base64>` secret is the base64-decoded bytes (as the
 * spec's libraries do); any other secret is its UTF-8 bytes, the same key the interface's scheme uses.
 */
export function standardKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const decoded = Buffer.from(secret.slice('whsec_'.length), 'base64');
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

export function hexSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Signs with every secret given (current first); several signatures are separated as each scheme expects. */
export function signRequest(secrets: readonly string[], id: string, timestamp: number, body: string): SignedHeaders {
  return {
    // The interface names one value; several are comma-separated, the form GitHub-style verifiers split on.
    'x-webhook-signature': secrets.map((s) => hexSignature(s, body)).join(','),
    // Standard Webhooks: space-separated list of versioned signatures.
    'webhook-signature': secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' '),
  };
}
