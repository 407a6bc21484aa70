// SQL for phone accounts: the user of a number, a user made by phone sign-up, and confirming or setting a number
// together with the `phone` identity and app_metadata.providers, as GoTrue keeps them.
import type postgres from 'postgres';
import { findUserById, type UserRow } from './user-repository.js';

type Sql = postgres.Sql | postgres.TransactionSql;

export async function findUserByPhone(sql: Sql, phone: string): Promise<UserRow | undefined> {
  const [row] = await sql<Array<{ id: string }>>`
    select id from auth.users where phone = ${phone} and deleted_at is null`;
  return row ? findUserById(sql, row.id) : undefined;
}

/** A user signed up by number (no e-mail): app_metadata names the phone provider; undefined when it is taken. */
export async function insertPhoneUser(
  sql: Sql,
  input: {
    phone: string;
    passwordHash: string | null;
    confirmed: boolean;
    userMetadata: Record<string, unknown>;
  },
): Promise<UserRow | undefined> {
  const [created] = await sql<Array<{ id: string }>>`
    insert into auth.users (phone, phone_confirmed_at, encrypted_password, raw_user_meta_data, raw_app_meta_data)
    values (${input.phone}, ${input.confirmed ? new Date() : null}, ${input.passwordHash},
      ${sql.json(input.userMetadata as postgres.JSONValue)}, '{"provider": "phone", "providers": ["phone"]}')
    on conflict do nothing
    returning id`;
  if (!created) return undefined;
  await upsertPhoneIdentity(sql, created.id, input.phone, input.confirmed);
  return findUserById(sql, created.id);
}

/**
 * Gives the user this number (confirmed or not) with its identity; a number other than the current one leaves
 * the account's confirmation to `confirmed`. Throws 23505 when another account holds the number.
 */
export async function setPhone(sql: Sql, userId: string, phone: string, confirmed: boolean): Promise<UserRow> {
  await sql`
    update auth.users set
      -- (the right-hand sides read the row before the update: phone is still the old number here)
      phone_confirmed_at = case when phone is not distinct from ${phone} then
          case when ${confirmed} then coalesce(phone_confirmed_at, now()) else phone_confirmed_at end
        when ${confirmed} then now() end,
      phone = ${phone},
      -- A number makes an anonymous user a permanent one (GoTrue's conversion).
      raw_app_meta_data = case when is_anonymous then raw_app_meta_data || '{"provider": "phone"}' else raw_app_meta_data
        end,
      is_anonymous = is_anonymous and not ${confirmed},
      updated_at = now()
    where id = ${userId}`;
  await upsertPhoneIdentity(sql, userId, phone, confirmed);
  return (await findUserById(sql, userId))!;
}

async function upsertPhoneIdentity(sql: Sql, userId: string, phone: string, verified: boolean): Promise<void> {
  const data = { sub: userId, phone, email_verified: false, phone_verified: verified };
  const [updated] = await sql`
    update auth.identities set identity_data = identity_data || ${sql.json(data)}, updated_at = now()
    where user_id = ${userId} and provider = 'phone' returning id`;
  if (!updated) {
    await sql`
      insert into auth.identities (user_id, provider, provider_id, identity_data)
      values (${userId}, 'phone', ${userId}, ${sql.json(data)})`;
  }
  await sql`
    update auth.users u set raw_app_meta_data = u.raw_app_meta_data || jsonb_build_object('providers',
      coalesce((select jsonb_agg(distinct i.provider) from auth.identities i where i.user_id = u.id), '[]'::jsonb))
    where u.id = ${userId}`;
}
