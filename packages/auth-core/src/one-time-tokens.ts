// E-mail link tokens (recovery, confirmation, invite, magic link, e-mail change) and the six-digit code sent with
// each: random, single use (one row, so spending either spends both), expiring, stored only as hashes. Issuing a
// new one of a type replaces the user's previous one.
import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import { hashToken, randomToken } from './opaque-token.js';
import { createFlowState, type PkceChallenge } from './pkce-flow.js';

export interface OneTimeSecret {
  /** The link's token (256 bits). */
  token: string;
  /** The six-digit code typed by hand; good only with the address it was sent to. */
  code: string;
}

/** The code is hashed with the user id: a bare six-digit hash would be reversed by trying all million. */
function codeHash(userId: string, code: string): string {
  return hashToken(`${userId}:${code}`);
}

export type OneTimeTokenType = 'confirmation' | 'recovery' | 'invite' | 'magiclink' | 'email_change';

export interface ConsumedToken {
  userId: string;
  type: OneTimeTokenType;
  relatesTo: string;
  /** Set when the token was issued in a PKCE flow. */
  flowStateId: string | null;
}

interface ConsumedRow {
  user_id: string;
  token_type: OneTimeTokenType;
  relates_to: string;
  flow_state_id: string | null;
}

function consumed(row: ConsumedRow | undefined): ConsumedToken | undefined {
  return row
    ? { userId: row.user_id, type: row.token_type, relatesTo: row.relates_to, flowStateId: row.flow_state_id }
    : undefined;
}

export async function issueOneTimeToken(
  sql: postgres.Sql,
  userId: string,
  type: OneTimeTokenType,
  ttlSeconds: number,
  relatesTo = '',
  pkce?: PkceChallenge,
): Promise<OneTimeSecret> {
  const token = randomToken();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await sql.begin(async (tx) => {
    await tx`delete from auth.one_time_tokens where user_id = ${userId} and token_type = ${type}`;
    // In a PKCE flow the link's redirect carries an auth code for this challenge instead of the tokens.
    const flowStateId = pkce ? await createFlowState(tx, { userId, authenticationMethod: type, pkce }) : null;
    await tx`
      insert into auth.one_time_tokens (user_id, token_type, token_hash, code_hash, relates_to, expires_at,
        flow_state_id)
      values (${userId}, ${type}, ${hashToken(token)}, ${codeHash(userId, code)}, ${relatesTo},
        now() + make_interval(secs => ${ttlSeconds}), ${flowStateId})`;
  });
  return { token, code };
}

/** Consumes the code sent to `email` (normalised) for one of the types; undefined when wrong, used or expired. */
export async function consumeOneTimeCode(
  sql: postgres.Sql,
  email: string,
  code: string,
  types: readonly OneTimeTokenType[],
): Promise<ConsumedToken | undefined> {
  const [user] = await sql<Array<{ id: string }>>`
    select id from auth.users where lower(email) = ${email} and deleted_at is null and not is_sso_user`;
  // An e-mail change's code goes to the new address: look the token up by the address it relates to as well.
  const [row] = await sql<ConsumedRow[]>`
    delete from auth.one_time_tokens t
    where token_type in ${sql([...types])} and expires_at > now()
      and ((t.user_id = ${user?.id ?? null}::uuid and code_hash = ${user ? codeHash(user.id, code) : ''})
        or (token_type = 'email_change' and relates_to = ${email}
            and code_hash = encode(extensions.digest(t.user_id::text || ':' || ${code}, 'sha256'), 'hex')))
    returning user_id, token_type, relates_to, flow_state_id`;
  return consumed(row);
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
): Promise<ConsumedToken | undefined> {
  const [row] = await sql<ConsumedRow[]>`
    delete from auth.one_time_tokens t
    where token_hash = ${hashToken(token)} and token_type in ${sql([...types])} and expires_at > now()
      and (${email ?? null}::text is null
           or exists (select 1 from auth.users u where u.id = t.user_id and lower(u.email) = ${email ?? null}::text))
    returning user_id, token_type, relates_to, flow_state_id`;
  return consumed(row);
}
