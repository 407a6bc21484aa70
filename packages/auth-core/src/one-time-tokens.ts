// E-mail link tokens (recovery, confirmation, invite, magic link, e-mail change): random, single use,
// expiring, stored only as hashes. Issuing a new one of a type replaces the user's previous one.
import type postgres from 'postgres';
import { hashToken, randomToken } from './opaque-token.js';

export type OneTimeTokenType = 'confirmation' | 'recovery' | 'invite' | 'magiclink' | 'email_change';

export async function issueOneTimeToken(
  sql: postgres.Sql,
  userId: string,
  type: OneTimeTokenType,
  ttlSeconds: number,
  relatesTo = '',
): Promise<string> {
  const token = randomToken();
  await sql.begin(async (tx) => {
    await tx`delete from auth.one_time_tokens where user_id = ${userId} and token_type = ${type}`;
    await tx`
      insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to, expires_at)
      values (${userId}, ${type}, ${hashToken(token)}, ${relatesTo}, now() + make_interval(secs => ${ttlSeconds}))`;
  });
  return token;
}

/**
 * Consumes a token of one of the given types; undefined when unknown, used, expired, of another type, or (when
 * `email` is given, normalised) of another user's address: a wrong guess must not spend the token.
 */
export async function consumeOneTimeToken(
  sql: postgres.Sql,
  token: string,
  types: readonly OneTimeTokenType[],
  email?: string,
): Promise<{ userId: string; type: OneTimeTokenType; relatesTo: string } | undefined> {
  const [row] = await sql<Array<{ user_id: string; token_type: OneTimeTokenType; relates_to: string }>>`
    delete from auth.one_time_tokens t
    where token_hash = ${hashToken(token)} and token_type in ${sql([...types])} and expires_at > now()
      and (${email ?? null}::text is null
           or exists (select 1 from auth.users u where u.id = t.user_id and lower(u.email) = ${email ?? null}::text))
    returning user_id, token_type, relates_to`;
  return row ? { userId: row.user_id, type: row.token_type, relatesTo: row.relates_to } : undefined;
}
