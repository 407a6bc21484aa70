// SQL for external identities (OAuth / OpenID providers): find the user of a provider's subject, attach an
// identity to a user, create a user from a provider, and unlink one.
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { findUserById, normalizeEmail, type UserRow } from './user-repository.js';

type Sql = postgres.Sql | postgres.TransactionSql;

/** The user already holding this provider subject, after refreshing the identity's data and sign-in time. */
export async function userOfIdentity(
  sql: Sql,
  provider: string,
  subject: string,
  data: Record<string, unknown>,
): Promise<UserRow | undefined> {
  const [row] = await sql<Array<{ user_id: string }>>`
    update auth.identities set identity_data = ${sql.json(data as postgres.JSONValue)}, last_sign_in_at = now(),
      updated_at = now()
    where provider = ${provider} and provider_id = ${subject} returning user_id`;
  return row ? findUserById(sql, row.user_id) : undefined;
}

/** Adds the identity to the user and the provider to app_metadata.providers; taken by anyone is 422. */
export async function attachIdentity(
  sql: Sql,
  userId: string,
  provider: string,
  subject: string,
  data: Record<string, unknown>,
): Promise<void> {
  const [inserted] = await sql`
    insert into auth.identities (user_id, provider, provider_id, identity_data, last_sign_in_at)
    values (${userId}, ${provider}, ${subject}, ${sql.json(data as postgres.JSONValue)}, now())
    on conflict (provider, provider_id) do nothing returning id`;
  if (!inserted) throw authErrors.identityAlreadyExists();
  await syncProviders(sql, userId);
}

/** app_metadata.providers lists the user's identities' providers (GoTrue keeps them in step). */
async function syncProviders(sql: Sql, userId: string): Promise<void> {
  await sql`
    update auth.users u set raw_app_meta_data = u.raw_app_meta_data || jsonb_build_object('providers',
      coalesce((select jsonb_agg(distinct i.provider) from auth.identities i where i.user_id = u.id), '[]'::jsonb)),
      updated_at = now()
    where u.id = ${userId}`;
}

/**
 * Before a provider that verified the address is attached to an unconfirmed account, whatever was set on that
 * account by someone who never proved the address (its password, its e-mail identity) goes: otherwise whoever
 * pre-registered a victim's address would share the account the victim then signs in to (GoTrue does the same).
 */
export async function dropUnconfirmedCredentials(sql: Sql, user: UserRow): Promise<void> {
  if (user.email_confirmed_at) return;
  await sql`update auth.users set encrypted_password = null, email_confirmed_at = now() where id = ${user.id}`;
  await sql`delete from auth.identities where user_id = ${user.id} and provider = 'email'`;
  await sql`delete from auth.sessions where user_id = ${user.id}`;
}

/** A user made by a provider: no password, the provider's identity, app_metadata naming the provider. */
export async function insertProviderUser(
  sql: Sql,
  input: { email: string | null; confirmed: boolean; provider: string; userMetadata: Record<string, unknown> },
): Promise<UserRow> {
  const appMeta = { provider: input.provider, providers: [input.provider] };
  const [created] = await sql<Array<{ id: string }>>`
    insert into auth.users (email, email_confirmed_at, raw_user_meta_data, raw_app_meta_data)
    values (${input.email === null ? null : normalizeEmail(input.email)}, ${input.confirmed ? new Date() : null},
      ${sql.json(input.userMetadata as postgres.JSONValue)}, ${sql.json(appMeta)})
    returning id`;
  return (await findUserById(sql, created!.id))!;
}

/** unlinkIdentity: the user's own identity, never the last one (GoTrue's single_identity_not_deletable). */
export async function unlinkIdentity(sql: postgres.Sql, userId: string, identityId: string): Promise<void> {
  await sql.begin(async (tx) => {
    const rows = await tx<Array<{ id: string; provider: string }>>`
      select id, provider from auth.identities where user_id = ${userId} for update`;
    const identity = rows.find((r) => r.id === identityId);
    if (!identity) throw authErrors.identityNotFound();
    if (rows.length === 1) throw authErrors.singleIdentityNotDeletable();
    await tx`delete from auth.identities where id = ${identityId}`;
    await syncProviders(tx, userId);
  });
}
