// What a passed second factor does to sessions, whichever the factor: the caller's session rises to aal2 with the
// factor's method appended to its amr (both on the session row, so refreshed tokens keep them), and the user's
// sessions that never passed a factor end, as GoTrue does once a factor is verified.
import type postgres from 'postgres';

export async function raiseToAal2(
  tx: postgres.TransactionSql,
  userId: string,
  sessionId: string,
  method: string,
): Promise<void> {
  const amr = [{ method, timestamp: Math.floor(Date.now() / 1000) }];
  await tx`
    update auth.sessions set aal = 'aal2', amr = amr || ${tx.json(amr)}::jsonb, updated_at = now()
    where id = ${sessionId}`;
  await tx`delete from auth.sessions where user_id = ${userId} and aal = 'aal1'`;
}
