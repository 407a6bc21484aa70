// Secrets generated on first start and kept in DATA_DIR, so restarts keep the same keys and passwords.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Secrets {
  jwtSecret: string;
  authenticatorPassword: string;
}

export function loadSecrets(dataDir: string, jwtSecretFromEnv?: string): Secrets {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const secrets: Secrets = {
    jwtSecret: stored.jwtSecret ?? randomBytes(32).toString('base64url'),
    authenticatorPassword: stored.authenticatorPassword ?? randomBytes(24).toString('base64url'),
  };
  if (stored.jwtSecret !== secrets.jwtSecret || stored.authenticatorPassword !== secrets.authenticatorPassword) {
    writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  }
  return jwtSecretFromEnv ? { ...secrets, jwtSecret: jwtSecretFromEnv } : secrets;
}
