// The admin API's multi-factor endpoints (GoTrue's /admin/users/{id}/factors): list a user's factors and delete one,
// which also brings the user's aal2 sessions back to aal1, as GoTrue does.
import { isUuid } from './auth-input.js';
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import * as users from './user-repository.js';

export function createAdminFactors(sql: postgres.Sql) {
  async function userOf(userId: string): Promise<users.UserRow> {
    const user = isUuid(userId) ? await users.findUserById(sql, userId) : undefined;
    if (!user) throw authErrors.userNotFound();
    return user;
  }

  return {
    /** The user's factors, verified or not (an empty list when there are none). */
    async listFactors(userId: string): Promise<users.FactorJson[]> {
      return (await userOf(userId)).factors ?? [];
    },

    async deleteFactor(userId: string, factorId: string): Promise<users.FactorJson> {
      const factor = (await userOf(userId)).factors?.find((f) => f.id === factorId);
      if (!factor) throw authErrors.mfaFactorNotFound();
      await sql.begin(async (tx) => {
        await tx`delete from auth.mfa_factors where id = ${factorId} and user_id = ${userId}`;
        await tx`update auth.sessions set aal = 'aal1' where user_id = ${userId} and aal = 'aal2'`;
      });
      return factor;
    },
  };
}
