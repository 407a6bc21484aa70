// Password hashes: argon2id with OWASP parameters for new hashes; bcrypt hashes of imported users are
// verified and reported as needing an upgrade. Unknown users still cost one verification (no timing leak).
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

// OWASP password storage cheat sheet: argon2id, m = 19 MiB, t = 2, p = 1.
// algorithm 2 = Argon2id (a const enum in the typings, unusable under verbatimModuleSyntax).
const ARGON = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

interface VerifyResult {
  ok: boolean;
  /** The stored hash is not argon2id with the current parameters: rehash after a successful sign-in. */
  needsRehash: boolean;
}

let dummy: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return argonHash(password, ARGON);
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<VerifyResult> {
  if (!stored) {
    // Same work as a real check so a missing user cannot be told apart by timing.
    dummy ??= hashPassword('not-a-real-password');
    await argonVerify(await dummy, password).catch(() => false);
    return { ok: false, needsRehash: false };
  }
  if (/^\$2[aby]\$/.test(stored)) {
    return { ok: await bcrypt.compare(password, stored), needsRehash: true };
  }
  const ok = await argonVerify(stored, password).catch(() => false);
  return {
    ok,
    needsRehash:
      ok && !stored.startsWith(`$argon2id$v=19$m=${ARGON.memoryCost},t=${ARGON.timeCost},p=${ARGON.parallelism}$`),
  };
}
