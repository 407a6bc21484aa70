// Encryption at rest of TOTP factor secrets: AES-256-GCM with a key derived by HKDF-SHA256 from the server's JWT
// secret, and the factor id as associated data, so a ciphertext copied onto another factor row does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface SecretBox {
  seal(factorId: string, plaintext: string): string;
  open(factorId: string, sealed: string): string;
}

export function createSecretBox(serverSecret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, 'auction-ops', 'mfa factor secret v1', 32));
  return {
    seal(factorId, plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(factorId));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join(':');
    },
    open(factorId, sealed) {
      const [version, iv, body, tag] = sealed.split(':');
      if (version !== VERSION || !iv || !body || !tag) throw new Error('unreadable factor secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(factorId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
