// The signed-in caller behind an access token: the user and the session it names, which must still exist.
import type postgres from 'postgres';
import { subject } from './auth-input.js';
import { authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import * as users from './user-repository.js';

export async function sessionCaller(
  sql: postgres.Sql,
  claims: Claims,
): Promise<{ user: users.UserRow; sessionId: string }> {
  const { userId, sessionId } = subject(claims);
  const { user, sessionExists } = await users.findUserBySession(sql, userId, sessionId);
  if (!user) throw authErrors.userNotFound();
  if (!sessionId || !sessionExists) throw authErrors.sessionNotFound();
  return { user, sessionId };
}

/** Whether the user has a verified MFA factor of any type (then managing credentials needs an aal2 session). */
export function hasVerifiedFactor(user: users.UserRow): boolean {
  return (user.factors ?? []).some((f) => f.status === 'verified');
}
