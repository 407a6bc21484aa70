// SQL for auth users and identities (owner pool; auth tables are not exposed to request roles).
import type postgres from 'postgres';

export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  phone: string | null;
  phone_confirmed_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  is_anonymous: boolean;
  is_sso_user: boolean;
  banned_until: Date | null;
  invited_at?: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  identities?: IdentityRow[];
  factors?: FactorJson[];
}

/** A factor as auth-js lists it (user.factors); the secret never leaves mfa-service.ts. */
export interface FactorJson {
  id: string;
  friendly_name?: string;
  factor_type: 'totp' | 'phone';
  /** A phone factor's number. */
  phone?: string | null;
  status: 'verified' | 'unverified';
  created_at: string;
  updated_at: string;
}

export interface IdentityRow {
  id: string;
  user_id: string;
  provider: string;
  provider_id: string;
  identity_data: Record<string, unknown>;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type Sql = postgres.Sql | postgres.TransactionSql;

const USER_COLUMNS = `u.id, u.aud, u.role, u.email, u.encrypted_password, u.email_confirmed_at, u.phone,
  u.phone_confirmed_at, u.last_sign_in_at, u.raw_app_meta_data, u.raw_user_meta_data, u.is_anonymous,
  u.is_sso_user, u.banned_until, u.invited_at, u.deleted_at, u.created_at, u.updated_at,
  coalesce((select json_agg(i order by i.created_at) from auth.identities i where i.user_id = u.id), '[]')
    as identities,
  (select json_agg(json_build_object('id', f.id, 'friendly_name', f.friendly_name, 'factor_type', f.factor_type,
     'status', f.status, 'created_at', f.created_at, 'updated_at', f.updated_at, 'phone', coalesce(f.phone, ''))
     order by f.created_at)
   from auth.mfa_factors f where f.user_id = u.id) as factors`;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  const [row] = await sql.unsafe<UserRow[]>(
    `select ${USER_COLUMNS} from auth.users u where lower(u.email) = $1 and u.deleted_at is null and not u.is_sso_user`,
    [normalizeEmail(email)],
  );
  return row;
}

export async function findUserById(sql: Sql, id: string): Promise<UserRow | undefined> {
  const [row] = await sql.unsafe<UserRow[]>(
    `select ${USER_COLUMNS} from auth.users u where u.id = $1 and u.deleted_at is null`,
    [id],
  );
  return row;
}

/** The user behind an access token, only if its session still exists (signed-out tokens are refused). */
export async function findUserBySession(
  sql: Sql,
  userId: string,
  sessionId: string | undefined,
): Promise<{ user: UserRow | undefined; sessionExists: boolean }> {
  const [row] = await sql.unsafe<Array<UserRow & { session_exists: boolean }>>(
    `select ${USER_COLUMNS},
       ($2::uuid is null or exists (select 1 from auth.sessions s where s.id = $2::uuid
         and s.user_id = u.id)) as session_exists
     from auth.users u where u.id = $1 and u.deleted_at is null`,
    [userId, sessionId ?? null],
  );
  if (!row) return { user: undefined, sessionExists: false };
  const { session_exists, ...user } = row;
  return { user, sessionExists: session_exists };
}

export interface NewUser {
  email: string;
  passwordHash: string | null;
  confirmed: boolean;
  userMetadata: Record<string, unknown>;
  appMetadata?: Record<string, unknown>;
  role?: string;
}

/** Inserts the user and its e-mail identity; undefined when the address is taken. */
export async function insertUser(sql: postgres.Sql, user: NewUser): Promise<UserRow | undefined> {
  const email = normalizeEmail(user.email);
  const appMeta = { provider: 'email', providers: ['email'], ...user.appMetadata };
  return sql.begin(async (tx) => {
    const [created] = await tx<Array<{ id: string }>>`
      insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data, raw_app_meta_data,
        role)
      values (${email}, ${user.passwordHash}, ${user.confirmed ? new Date() : null},
        ${tx.json(user.userMetadata as postgres.JSONValue)},
        ${tx.json(appMeta as postgres.JSONValue)}, ${user.role ?? 'authenticated'})
      on conflict do nothing
      returning id`;
    if (!created) return undefined;
    await tx`
      insert into auth.identities (user_id, provider, provider_id, identity_data)
      values (${created.id}, 'email', ${created.id},
        ${tx.json({ sub: created.id, email, email_verified: user.confirmed, phone_verified: false })})`;
    return findUserById(tx, created.id);
  });
}

/** An anonymous user (signInAnonymously): no e-mail, no identity, is_anonymous until an address is added. */
export async function insertAnonymousUser(sql: postgres.Sql, userMetadata: Record<string, unknown>): Promise<UserRow> {
  const [created] = await sql<Array<{ id: string }>>`
    insert into auth.users (raw_user_meta_data, raw_app_meta_data, is_anonymous)
    values (${sql.json(userMetadata as postgres.JSONValue)}, '{}', true)
    returning id`;
  return (await findUserById(sql, created!.id))!;
}

export interface UserChanges {
  email?: string;
  passwordHash?: string;
  confirmEmail?: boolean;
  userMetadata?: Record<string, unknown>;
  appMetadata?: Record<string, unknown>;
  bannedUntil?: Date | null;
  lastSignIn?: boolean;
}

/** Applies changes; metadata objects are merged into the stored ones (top-level keys, as GoTrue does). */
export async function updateUser(sql: Sql, id: string, changes: UserChanges): Promise<UserRow | undefined> {
  const email = changes.email === undefined ? null : normalizeEmail(changes.email);
  await sql`
    update auth.users set
      email = coalesce(${email}, email),
      encrypted_password = coalesce(${changes.passwordHash ?? null}, encrypted_password),
      email_confirmed_at = case when ${changes.confirmEmail ?? false} then coalesce(email_confirmed_at, now())
        else email_confirmed_at end,
      raw_user_meta_data = raw_user_meta_data || ${sql.json((changes.userMetadata ?? {}) as postgres.JSONValue)},
      raw_app_meta_data = raw_app_meta_data || ${sql.json((changes.appMetadata ?? {}) as postgres.JSONValue)}
        || case when is_anonymous and ${email}::text is not null
          then '{"provider": "email", "providers": ["email"]}'::jsonb else '{}'::jsonb end,
      -- An address makes an anonymous user a permanent one (GoTrue's conversion).
      is_anonymous = is_anonymous and ${email}::text is null,
      banned_until = case when ${changes.bannedUntil !== undefined} then ${changes.bannedUntil ?? null}::timestamptz
        else banned_until end,
      last_sign_in_at = case when ${changes.lastSignIn ?? false} then now() else last_sign_in_at end,
      updated_at = now()
    where id = ${id} and deleted_at is null`;
  if (email !== null) {
    await sql`
      update auth.identities set provider_id = ${id}, identity_data = identity_data || ${sql.json({ email })},
        updated_at = now()
      where user_id = ${id} and provider = 'email'`;
    // A converted anonymous user has no e-mail identity yet.
    await sql`
      insert into auth.identities (user_id, provider, provider_id, identity_data)
      select ${id}, 'email', ${id}, ${sql.json({ sub: id, email, email_verified: false, phone_verified: false })}
      where not exists (select 1 from auth.identities where user_id = ${id} and provider = 'email')`;
  }
  return findUserById(sql, id);
}

/** Newest first, as GoTrue lists them (created_at descending). */
export async function listUsers(sql: Sql, page: number, perPage: number): Promise<{ users: UserRow[]; total: number }> {
  const users = await sql.unsafe<UserRow[]>(
    `select ${USER_COLUMNS} from auth.users u where u.deleted_at is null order by u.created_at desc, u.id desc
      limit $1 offset $2`,
    [perPage, (page - 1) * perPage],
  );
  const [{ total }] = await sql<
    Array<{ total: number }>
  >`select count(*)::int as total from auth.users where deleted_at is null`;
  return { users: [...users], total };
}

/**
 * Hard delete (sessions, tokens, identities and the public profile cascade); soft delete keeps the row, and setting
 * its deleted_at removes every credential and the address (auth.forget_deleted_account, auth-core 0014).
 */
export async function deleteUser(sql: Sql, id: string, soft: boolean): Promise<boolean> {
  if (soft) {
    const rows = await sql`
      update auth.users set deleted_at = now(), updated_at = now() where id = ${id} and deleted_at is null returning id`;
    return rows.length > 0;
  }
  const rows = await sql`delete from auth.users where id = ${id} returning id`;
  return rows.length > 0;
}
