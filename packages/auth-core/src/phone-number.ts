// Phone numbers as GoTrue keeps them: E.164 digits without the "+" (blanks removed), so "+1 555 0100" and
// "15550100" are one account. Anything else is GoTrue's validation error.
import { authErrors } from './errors.js';

const E164_DIGITS = /^[1-9]\d{1,14}$/;

/** "+" and blanks removed, as GoTrue formats a number before looking it up. */
export function formatPhone(phone: string): string {
  return phone.replace(/^\+/, '').replaceAll(' ', '');
}

/** The stored form of a number given by a client; 400 validation_failed (GoTrue's words) when it is not E.164. */
export function validPhone(phone: unknown): string {
  if (typeof phone !== 'string') throw authErrors.phoneInvalid();
  const formatted = formatPhone(phone);
  if (!E164_DIGITS.test(formatted)) throw authErrors.phoneInvalid();
  return formatted;
}

/**
 * GoTrue's test OTPs (GOTRUE_SMS_TEST_OTP): `phone:code,phone:code`. Such a number is sent nothing and its code is
 * always the one given (development and automated tests).
 */
export function parseTestOtps(value: string): ReadonlyMap<string, string> {
  const codes = new Map<string, string>();
  for (const entry of value.split(',')) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    const colon = trimmed.lastIndexOf(':');
    const phone = formatPhone(trimmed.slice(0, colon).trim());
    const code = trimmed.slice(colon + 1).trim();
    if (colon < 1 || !E164_DIGITS.test(phone) || !/^\d{4,10}$/.test(code)) {
      throw new Error(`"${trimmed}" is not phone:code (E.164 number, 4 to 10 digits)`);
    }
    codes.set(phone, code);
  }
  return codes;
}
