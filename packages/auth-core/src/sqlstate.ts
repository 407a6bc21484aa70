// Named checks of the PostgreSQL error codes (SQLSTATE) the auth flows turn into their own errors.
import { authErrors } from './errors.js';

const sqlstate = (error: unknown): string | undefined => (error as { code?: string }).code;

/** 23505: a unique constraint refused the row (a taken e-mail, phone number or factor name). */
export const isUniqueViolation = (error: unknown): boolean => sqlstate(error) === '23505';

/** 23503: a foreign key refused the row (what it points at is gone). */
export const isForeignKeyViolation = (error: unknown): boolean => sqlstate(error) === '23503';

/** For `.catch()` after writing a user's address: a taken address is AuthError email_exists; anything else rethrown. */
export function uniqueToEmailExists(error: unknown): never {
  if (isUniqueViolation(error)) throw authErrors.emailExists();
  throw error;
}
