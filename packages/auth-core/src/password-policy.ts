// Password strength rules: length bounds, optional required character classes, not equal to the e-mail.
import { authErrors, type WeakPasswordReason } from './errors.js';

export type CharacterClass = 'lower' | 'upper' | 'digit' | 'symbol';

export interface PasswordPolicy {
  minLength: number;
  maxLength: number;
  requiredClasses: readonly CharacterClass[];
}

const CLASS_RE: Record<CharacterClass, RegExp> = {
  lower: /[a-z]/,
  upper: /[A-Z]/,
  digit: /[0-9]/,
  symbol: /[^A-Za-z0-9]/,
};

export function parseCharacterClasses(list: string): CharacterClass[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (!(s in CLASS_RE)) throw new Error(`unknown character class "${s}" (lower, upper, digit, symbol)`);
      return s as CharacterClass;
    });
}

/** Throws weak_password (422) with reasons, or returns when the password is acceptable. */
export function checkPassword(policy: PasswordPolicy, password: string, email?: string | null): void {
  const reasons = new Set<WeakPasswordReason>();
  const problems: string[] = [];
  // Length in bytes for the upper bound: bcrypt-compatible exports truncate at 72 bytes.
  const bytes = Buffer.byteLength(password, 'utf8');
  if ([...password].length < policy.minLength) {
    reasons.add('length');
    problems.push(`Password should be at least ${policy.minLength} characters.`);
  }
  if (bytes > policy.maxLength) {
    reasons.add('length');
    problems.push(`Password should be at most ${policy.maxLength} bytes.`);
  }
  const missing = policy.requiredClasses.filter((cls) => !CLASS_RE[cls].test(password));
  if (missing.length > 0) {
    reasons.add('characters');
    problems.push(`Password should contain at least one character of each: ${missing.join(', ')}.`);
  }
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    reasons.add('characters');
    problems.push('Password should not be the same as the e-mail address.');
  }
  if (reasons.size > 0) throw authErrors.weakPassword([...reasons], problems.join(' '));
}
