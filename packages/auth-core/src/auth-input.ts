// Input checks every auth flow shares: the e-mail format, UUIDs, plain objects, and the user and session an access
// token names.
import type { Claims } from './jwt.js';
import { authErrors } from './errors.js';
import { normalizeEmail } from './user-repository.js';

/**
 * GoTrue's format check (checkmail's pattern): a dot-atom local part, and host labels of letters, digits and inner
 * hyphens. Address groups, display names, quoted parts and blanks (`xx:;x@x.x`, `A <a@b.c>`, ` a@b.c`) are refused.
 */
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** The e-mail check of every entry point: sign-up, recovery, one-time codes, admin create, update, generate_link. */
export function validEmail(email: unknown): string {
  if (typeof email !== 'string' || email.length > 255 || !EMAIL_RE.test(email)) throw authErrors.emailInvalid();
  return normalizeEmail(email);
}

/** The user and session of an access token; API keys and other roles are not users. */
export function subject(claims: Claims | undefined): { userId: string; sessionId?: string } {
  if (!claims || typeof claims.sub !== 'string' || claims.role === 'anon' || claims.role === 'service_role') {
    throw authErrors.notAuthenticated();
  }
  if (!/^[0-9a-f-]{36}$/i.test(claims.sub)) throw authErrors.invalidToken('invalid claim: sub claim must be a UUID');
  const sessionId =
    typeof claims.session_id === 'string' && /^[0-9a-f-]{36}$/i.test(claims.session_id) ? claims.session_id : undefined;
  return { userId: claims.sub, sessionId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
