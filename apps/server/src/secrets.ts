// The JWT secret, generated on first start and kept in DATA_DIR so restarts keep the same keys.
// (The database password of the request role lives in the database itself; see packages/database/src/roles.ts.)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Secrets {
  jwtSecret: string;
}

export function loadSecrets(dataDir: string, jwtSecretFromEnv?: string): Secrets {
  if (jwtSecretFromEnv) return { jwtSecret: jwtSecretFromEnv };
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (stored.jwtSecret) return { jwtSecret: stored.jwtSecret };
  const secrets = { jwtSecret: randomBytes(32).toString('base64url') };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
