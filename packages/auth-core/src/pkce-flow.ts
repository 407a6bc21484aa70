// PKCE flow states (RFC 7636, GoTrue's flow_state): the code challenge a client sent when a redirecting flow
// began, the auth code issued when the flow comes back, and the one exchange of that code for a session.
import { createHash, timingSafeEqual } from 'node:crypto';
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { hashToken, randomToken } from './opaque-token.js';

export interface PkceChallenge {
  challenge: string;
  method: 's256' | 'plain';
}

/** GoTrue's default FLOW_STATE_EXPIRY_DURATION: an auth code must be exchanged within five minutes. */
export const FLOW_STATE_SECONDS = 300;

const CHALLENGE_RE = /^[a-zA-Z._~0-9-]{43,128}$/;

/** The challenge of a request body or query (both or neither); undefined for the implicit flow. */
export function pkceChallenge(challenge: unknown, method: unknown): PkceChallenge | undefined {
  const given = (v: unknown) => v !== undefined && v !== null && v !== '';
  if (!given(challenge) && !given(method)) return undefined;
  if (!given(challenge) || !given(method) || typeof challenge !== 'string' || typeof method !== 'string') {
    throw authErrors.validation('PKCE flow requires code_challenge_method and code_challenge');
  }
  if (!CHALLENGE_RE.test(challenge)) {
    throw authErrors.validation(
      'code challenge has to be between 43 and 128 characters of letters, digits, hyphens, periods, underscores and tildes',
    );
  }
  const lower = method.toLowerCase();
  if (lower !== 's256' && lower !== 'plain') throw authErrors.validation('code challenge method not supported');
  return { challenge, method: lower };
}

/** Starts a flow state; flows not finished within a day are swept here, as states are made. */
export async function createFlowState(
  sql: postgres.Sql | postgres.TransactionSql,
  input: { userId: string | null; authenticationMethod: string; providerType?: string; pkce: PkceChallenge },
): Promise<string> {
  await sql`delete from auth.flow_state where created_at < now() - interval '1 day'`;
  const [row] = await sql<Array<{ id: string }>>`
    insert into auth.flow_state (user_id, code_challenge, code_challenge_method, authentication_method, provider_type)
    values (${input.userId}, ${input.pkce.challenge}, ${input.pkce.method}, ${input.authenticationMethod},
      ${input.providerType ?? 'email'})
    returning id`;
  return row!.id;
}

/** The auth code for the redirect; the five minutes to exchange it start now. */
export async function issueAuthCode(sql: postgres.Sql, flowStateId: string, userId?: string): Promise<string> {
  const code = randomToken();
  const [row] = await sql`
    update auth.flow_state set auth_code_hash = ${hashToken(code)}, auth_code_issued_at = now(),
      user_id = coalesce(${userId ?? null}::uuid, user_id)
    where id = ${flowStateId} returning id`;
  if (!row) throw authErrors.flowStateNotFound();
  return code;
}

export function verifierMatches(state: { code_challenge: string; code_challenge_method: string }, verifier: string) {
  const expected =
    state.code_challenge_method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const a = Buffer.from(expected);
  const b = Buffer.from(state.code_challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Spends an auth code: the flow state is deleted only when the verifier matches, so a wrong guess does not end
 * the flow (GoTrue's rule), while the row lock makes a code good for exactly one session.
 */
export async function consumeAuthCode(
  sql: postgres.Sql,
  authCode: unknown,
  codeVerifier: unknown,
): Promise<{ userId: string; authenticationMethod: string; providerType: string }> {
  if (typeof authCode !== 'string' || typeof codeVerifier !== 'string' || !authCode || !codeVerifier) {
    throw authErrors.validation('invalid request: both auth code and code verifier should be non-empty');
  }
  return sql.begin(async (tx) => {
    const [state] = await tx<
      Array<{
        id: string;
        user_id: string | null;
        code_challenge: string;
        code_challenge_method: string;
        authentication_method: string;
        provider_type: string;
        expired: boolean;
      }>
    >`
      select id, user_id, code_challenge, code_challenge_method, authentication_method, provider_type,
        coalesce(auth_code_issued_at, created_at) < now() - make_interval(secs => ${FLOW_STATE_SECONDS}) as expired
      from auth.flow_state where auth_code_hash = ${hashToken(authCode)} for update`;
    if (!state?.user_id) throw authErrors.flowStateNotFound();
    if (state.expired) throw authErrors.flowStateExpired();
    if (!verifierMatches(state, codeVerifier)) {
      throw authErrors.badCodeVerifier();
    }
    await tx`delete from auth.flow_state where id = ${state.id}`;
    return {
      userId: state.user_id,
      authenticationMethod: state.authentication_method,
      providerType: state.provider_type,
    };
  }) as Promise<{ userId: string; authenticationMethod: string; providerType: string }>;
}
