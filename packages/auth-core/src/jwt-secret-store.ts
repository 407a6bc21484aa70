// The JWT secret, generated on the server's first start and kept in DATA_DIR so restarts keep the same keys; the
// CLI's `keys` reads the same file.
// (The database password of the request role lives in the database itself; see packages/database/src/roles.ts.)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Secrets {
  jwtSecret: string;
}

/**
 * The secrets in force: JWT_SECRET when set, else DATA_DIR's secrets.json, made on first use. With `create: false`
 * (the CLI's `keys`) a DATA_DIR without one is refused: a new secret there would print keys valid for no server.
 */
export function loadSecrets(dataDir: string, jwtSecretFromEnv?: string, options = { create: true }): Secrets {
  if (jwtSecretFromEnv) return { jwtSecret: jwtSecretFromEnv };
  const file = join(dataDir, 'secrets.json');
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (stored.jwtSecret) return { jwtSecret: stored.jwtSecret };
  if (!options.create)
    throw new Error(
      `DATA_DIR ${dataDir} holds no secrets.json (no server has started there): check DATA_DIR, or set JWT_SECRET`,
    );
  mkdirSync(dataDir, { recursive: true });
  const secrets = { jwtSecret: randomBytes(32).toString('base64url') };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
