// The admin API (service role only): list, create, read, update and delete users, generate e-mail links; invitations
// (admin-invite.ts) and factors (admin-factors.ts) come from their own modules.
import type postgres from 'postgres';
import { AuthError, authErrors } from './errors.js';
import { validPhone } from './phone-number.js';
import { findUserByPhone, insertPhoneUser, setPhone } from './phone-repository.js';
import { hashPassword } from './password-hasher.js';
import { checkPassword, type PasswordPolicy } from './password-policy.js';
import { issueOneTimeToken, type OneTimeTokenType } from './one-time-tokens.js';
import * as users from './user-repository.js';
import { userJson, type UserJson } from './user-view.js';
import { isObject, validEmail } from './auth-input.js';
import { isForeignKeyViolation, isUniqueViolation, uniqueToEmailExists } from './sqlstate.js';
import type { AuthService } from './auth-service.js';
import { createAdminInvites, EMAIL_CHANGE_LINK_TYPES } from './admin-invite.js';
import { createAdminFactors } from './admin-factors.js';

interface AdminUserInput {
  email?: unknown;
  password?: unknown;
  email_confirm?: unknown;
  user_metadata?: unknown;
  app_metadata?: unknown;
  ban_duration?: unknown;
  phone?: unknown;
  phone_confirm?: unknown;
}

const LINK_TYPES: Record<string, OneTimeTokenType> = {
  signup: 'confirmation',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
};

// GoTrue's admin words for a number another user holds.
const adminPhoneExists = () => new AuthError(422, 'phone_exists', 'Phone number already registered by another user');
function phoneTaken(error: unknown): never {
  if (isUniqueViolation(error)) throw adminPhoneExists();
  throw error;
}

export function createAdminService(
  sql: postgres.Sql,
  auth: AuthService,
  options: { passwordPolicy: PasswordPolicy; oneTimeTokenSeconds: number },
) {
  const invites = createAdminInvites(sql, auth, options);
  async function passwordHash(password: unknown, email: string | null): Promise<string | undefined> {
    if (password === undefined) return undefined;
    if (typeof password !== 'string') throw authErrors.validation('password must be a string');
    checkPassword(options.passwordPolicy, password, email);
    return hashPassword(password);
  }

  function metadata(value: unknown, name: string): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw authErrors.validation(`${name} must be an object`);
    return value;
  }

  function banUntil(value: unknown): Date | null | undefined {
    if (value === undefined) return undefined;
    if (value === 'none') return null;
    // Go duration subset, as GoTrue takes it: 24h, 90m, 30s.
    const match = typeof value === 'string' ? value.match(/^(\d+)(h|m|s)$/) : null;
    if (!match) throw authErrors.validation('ban_duration must be like 24h, 90m, 30s or none');
    const seconds = Number(match[1]) * (match[2] === 'h' ? 3600 : match[2] === 'm' ? 60 : 1);
    return new Date(Date.now() + seconds * 1000);
  }

  /** The number and its identity in one transaction; another holder is GoTrue's admin phone_exists. */
  const setPhoneOf = (id: string, phone: string, confirmed: boolean) =>
    sql.begin((tx) => setPhone(tx, id, phone, confirmed)).catch(phoneTaken);

  async function mustGet(id: string): Promise<users.UserRow> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw authErrors.userNotFound();
    const user = await users.findUserById(sql, id);
    if (!user) throw authErrors.userNotFound();
    return user;
  }

  return {
    invite: invites.invite,
    ...createAdminFactors(sql),

    async list(page: number, perPage: number) {
      const { users: rows, total } = await users.listUsers(sql, page, perPage);
      return { users: rows.map(userJson), total };
    },

    get: async (id: string): Promise<UserJson> => userJson(await mustGet(id)),

    async create(input: AdminUserInput): Promise<UserJson> {
      if (!input.email && !input.phone) {
        throw authErrors.validation('Cannot create a user without either an email or phone');
      }
      const phone = input.phone ? validPhone(input.phone) : undefined;
      if (phone && (await findUserByPhone(sql, phone))) throw adminPhoneExists();
      const email = input.email ? validEmail(input.email) : undefined;
      const hash = (await passwordHash(input.password, email ?? null)) ?? null;
      const userMetadata = metadata(input.user_metadata, 'user_metadata') ?? {};
      let created = email
        ? await users.insertUser(sql, {
            email,
            passwordHash: hash,
            confirmed: input.email_confirm === true,
            userMetadata,
            appMetadata: metadata(input.app_metadata, 'app_metadata'),
          })
        : await sql
            .begin((tx) =>
              insertPhoneUser(tx, {
                phone: phone!,
                passwordHash: hash,
                confirmed: input.phone_confirm === true,
                userMetadata,
              }),
            )
            .catch(phoneTaken);
      if (!created) throw email ? authErrors.emailExists() : adminPhoneExists();
      if (email && phone) created = await setPhoneOf(created.id, phone, input.phone_confirm === true);
      if (!email && input.app_metadata !== undefined) {
        created = (await users.updateUser(sql, created.id, {
          appMetadata: metadata(input.app_metadata, 'app_metadata'),
        }))!;
      }
      const banned = banUntil(input.ban_duration);
      return userJson(banned ? (await users.updateUser(sql, created.id, { bannedUntil: banned }))! : created);
    },

    async update(id: string, input: AdminUserInput): Promise<UserJson> {
      const user = await mustGet(id);
      const email = input.email === undefined ? undefined : validEmail(input.email);
      const hash = await passwordHash(input.password, email ?? user.email);
      // An empty number changes nothing, as in GoTrue.
      if (input.phone !== undefined && input.phone !== '') {
        const phone = validPhone(input.phone);
        const holder = await findUserByPhone(sql, phone);
        if (holder && holder.id !== id) throw adminPhoneExists();
        await setPhoneOf(id, phone, input.phone_confirm === true);
      } else if (input.phone_confirm === true && user.phone) {
        await setPhoneOf(id, user.phone, true);
      }
      const updated = await users
        .updateUser(sql, id, {
          email,
          passwordHash: hash,
          confirmEmail: input.email_confirm === true,
          userMetadata: metadata(input.user_metadata, 'user_metadata'),
          appMetadata: metadata(input.app_metadata, 'app_metadata'),
          bannedUntil: banUntil(input.ban_duration),
        })
        .catch(uniqueToEmailExists);
      if (!updated) throw authErrors.userNotFound();
      // New password or a ban: existing sessions end.
      if (hash || (updated.banned_until && updated.banned_until > new Date())) {
        await sql`delete from auth.sessions where user_id = ${id}`;
      }
      return userJson(updated);
    },

    async remove(id: string, soft: boolean): Promise<void> {
      await mustGet(id);
      try {
        await users.deleteUser(sql, id, soft);
      } catch (error) {
        if (isForeignKeyViolation(error)) {
          throw authErrors.conflict(
            'The user is referenced by other records; delete softly (should_soft_delete) or anonymize instead',
          );
        }
        throw error;
      }
    },

    /** Creates the link without sending mail (the caller delivers it), as GoTrue's generate_link does. */
    async generateLink(input: {
      type?: unknown;
      email?: unknown;
      password?: unknown;
      data?: unknown;
      redirect_to?: unknown;
      new_email?: unknown;
    }) {
      const type = typeof input.type === 'string' ? input.type : '';
      if ((EMAIL_CHANGE_LINK_TYPES as readonly string[]).includes(type))
        return invites.emailChangeLink({ ...input, type });
      const tokenType = LINK_TYPES[type];
      if (!tokenType) throw authErrors.validation(`Invalid email action link type requested: ${type}`);
      const email = validEmail(input.email);
      let user = await users.findUserByEmail(sql, email);
      if (type === 'signup' || type === 'invite') {
        if (user?.email_confirmed_at) throw authErrors.emailExists();
        if (!user) {
          user = await users.insertUser(sql, {
            email,
            passwordHash: type === 'signup' ? ((await passwordHash(input.password, email)) ?? null) : null,
            confirmed: false,
            userMetadata: metadata(input.data, 'data') ?? {},
          });
          if (!user) throw authErrors.emailExists();
        }
      } else if (!user) {
        throw authErrors.userNotFound();
      }
      const { token, code } = await issueOneTimeToken(sql, user.id, tokenType, options.oneTimeTokenSeconds);
      const redirectTo = auth.redirectTarget(typeof input.redirect_to === 'string' ? input.redirect_to : undefined);
      return {
        ...userJson(user),
        action_link: auth.linkUrl(type, token, redirectTo),
        email_otp: code,
        hashed_token: token,
        verification_type: type,
        redirect_to: redirectTo,
      };
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
