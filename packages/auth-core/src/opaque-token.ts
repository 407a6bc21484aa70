// Opaque secrets (refresh tokens, e-mail link tokens): 256 random bits, stored only as SHA-256 hashes.
// A rotated refresh token's successor is derived (HMAC of the parent under a server key), so a reused
// token inside the reuse window yields the same successor without the plain token ever being stored.
import { createHash, createHmac, randomBytes } from 'node:crypto';

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function childToken(key: string, parent: string): string {
  return createHmac('sha256', key).update('refresh:').update(parent).digest('base64url');
}
