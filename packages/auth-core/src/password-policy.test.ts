import { describe, expect, it } from 'vitest';
import { AuthError } from './errors.js';
import { checkPassword, parseCharacterClasses, type PasswordPolicy } from './password-policy.js';

const base: PasswordPolicy = { minLength: 8, maxLength: 72, requiredClasses: [] };
const strict: PasswordPolicy = { ...base, requiredClasses: parseCharacterClasses('lower,upper,digit,symbol') };

const reasons = (policy: PasswordPolicy, password: string, email?: string) => {
  try {
    checkPassword(policy, password, email);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).status).toBe(422);
    return ((error as AuthError).extra.weak_password as { reasons: string[] }).reasons;
  }
};

describe('checkPassword', () => {
  it.each([
    [base, 'short', undefined, ['length']],
    [base, '12345678', undefined, []],
    [base, 'x'.repeat(73), undefined, ['length']],
    [base, 'é'.repeat(40), undefined, ['length']], // 80 bytes
    [base, 'me@example.com', 'ME@example.com', ['characters']],
    [strict, 'alllowercase', undefined, ['characters']],
    [strict, 'Has1Symbol!', undefined, []],
    [strict, 'Ab1!', undefined, ['length']],
  ] as const)('%#: %s', (policy, password, email, expected) => {
    expect(reasons(policy, password, email)).toEqual(expected);
  });

  it('refuses unknown character classes in configuration', () => {
    expect(() => parseCharacterClasses('lower,emoji')).toThrow(/emoji/);
  });
});
