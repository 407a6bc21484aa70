// Phone accounts behind /auth/v1 (GoTrue's phone provider): sign-up with a number and password, sign-in with a
// password or an SMS code (POST /otp), verification of `sms` and `phone_change` codes, resending them, and a
// signed-in user's change of number. Sends happen before the answer, so a provider's failure or the resend
// interval reaches the client in GoTrue's errors (sms_send_failed, over_sms_send_rate_limit).
import type postgres from 'postgres';
import { isObject, subject } from './auth-input.js';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { AuthError, authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import { hashPassword, verifyPassword } from './password-hasher.js';
import { checkPassword, type PasswordPolicy } from './password-policy.js';
import type { PhoneCodePurpose, PhoneCodes } from './phone-codes.js';
import { formatPhone, validPhone } from './phone-number.js';
import { findUserByPhone, insertPhoneUser, setPhone } from './phone-repository.js';
import type { SmsChannel } from './sms-sender.js';
import * as users from './user-repository.js';
import { lookAlikeUser, userJson, type SessionJson, type UserJson } from './user-view.js';
import { isUniqueViolation } from './sqlstate.js';

export interface PhoneAuthSettings {
  /** GoTrue's GOTRUE_EXTERNAL_PHONE_ENABLED. */
  enabled: boolean;
  /** GoTrue's GOTRUE_SMS_AUTOCONFIRM: numbers are confirmed at sign-up and change without a code. */
  autoconfirm: boolean;
  disableSignup: boolean;
  passwordPolicy: PasswordPolicy;
}

export type PhoneVerifyType = 'sms' | 'phone_change';

const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const bannedOnVerify = () => new AuthError(403, 'user_banned', 'User is banned');

export function createPhoneAuthService(
  sql: postgres.Sql,
  auth: AuthService,
  codes: PhoneCodes,
  settings: PhoneAuthSettings,
) {
  /** `sms` by default; `whatsapp` only through Twilio (GoTrue's rule). */
  function channelOf(channel: unknown): SmsChannel {
    if (channel === undefined || channel === null || channel === '' || channel === 'sms') return 'sms';
    if (channel === 'whatsapp' && codes.sender.provider === 'twilio') return 'whatsapp';
    throw authErrors.invalidChannel();
  }

  function phoneTaken(error: unknown): never {
    if (isUniqueViolation(error)) throw authErrors.phoneExists();
    throw error;
  }

  async function send(
    tx: postgres.TransactionSql,
    userId: string,
    purpose: PhoneCodePurpose,
    phone: string,
    channel: SmsChannel,
  ) {
    return codes.send(tx, { userId, purpose, phone, channel });
  }

  return {
    channelOf,

    /** POST /signup {phone, password, data?, channel?}: a session with auto-confirm, else a code to verify. */
    async signUp(
      input: { phone: unknown; password: unknown; email?: unknown; data?: unknown; channel?: unknown; pkce?: unknown },
      meta: RequestMeta,
    ): Promise<{ user: UserJson; session?: SessionJson }> {
      if (settings.disableSignup) throw authErrors.signupDisabled();
      if (present(input.email)) {
        throw authErrors.validation('Only an email address or phone number should be provided on signup.');
      }
      if (!settings.enabled) throw authErrors.phoneProviderDisabled('Phone signups are disabled');
      const phone = validPhone(input.phone);
      const channel = channelOf(input.channel);
      if (present(input.pkce)) throw authErrors.validation('PKCE not supported for phone signups');
      if (typeof input.password !== 'string') throw authErrors.validation('Signup requires a valid password');
      checkPassword(settings.passwordPolicy, input.password, null);
      const metadata = isObject(input.data) ? input.data : {};
      // Hash before looking the number up, so known and unknown numbers cost the same.
      const passwordHash = await hashPassword(input.password);
      const outcome = await sql.begin(async (tx) => {
        const existing = await findUserByPhone(tx, phone);
        // An unconfirmed holder gets a fresh code (GoTrue does not change its password: the claim is unproven).
        if (existing && !existing.phone_confirmed_at && !settings.autoconfirm) {
          await send(tx, existing.id, 'confirmation', phone, channel);
          return { user: existing };
        }
        if (existing) return { taken: true as const };
        const created = await insertPhoneUser(tx, {
          phone,
          passwordHash,
          confirmed: settings.autoconfirm,
          userMetadata: metadata,
        });
        if (!created) return { taken: true as const };
        if (!settings.autoconfirm) await send(tx, created.id, 'confirmation', phone, channel);
        return { user: created };
      });
      if ('taken' in outcome) {
        if (settings.autoconfirm) throw authErrors.userAlreadyExists();
        // With confirmation on, GoTrue's answer for a taken number: a look-alike user and no SMS.
        return { user: lookAlikeUser({ email: '', phone }, 'phone', metadata) };
      }
      if (settings.autoconfirm) {
        const session = await auth.signInAs(outcome.user, 'password', meta);
        return { user: session.user, session };
      }
      return { user: { ...userJson(outcome.user), confirmation_sent_at: new Date().toISOString() } };
    },

    /** POST /token?grant_type=password with {phone, password}. */
    async signInWithPassword(input: { phone: unknown; password: unknown; email?: unknown }, meta: RequestMeta) {
      if (present(input.email)) {
        throw authErrors.validation('Only an email address or phone number should be provided on login.');
      }
      if (!settings.enabled) throw authErrors.phoneLoginsDisabled();
      if (typeof input.phone !== 'string' || typeof input.password !== 'string' || !input.password) {
        throw authErrors.invalidCredentials();
      }
      const user = await findUserByPhone(sql, formatPhone(input.phone));
      // One hash verification whether or not the number is known (verifyPassword does a dummy one).
      const result = await verifyPassword(input.password, user?.encrypted_password);
      if (!user || !result.ok) throw authErrors.invalidCredentials();
      if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
      if (!user.phone_confirmed_at) throw authErrors.phoneNotConfirmed();
      if (result.needsRehash) {
        await users.updateUser(sql, user.id, { passwordHash: await hashPassword(input.password) });
      }
      return auth.signInAs(user, 'password', meta);
    },

    /** POST /otp {phone, create_user?, data?, channel?}: a code by SMS, creating the user first when allowed. */
    async sendOtp(input: {
      phone: unknown;
      email?: unknown;
      createUser: boolean;
      data?: unknown;
      channel?: unknown;
    }): Promise<{ message_id?: string }> {
      if (present(input.email)) {
        throw authErrors.validation('Only an email address or phone number should be provided');
      }
      if (!settings.enabled) throw authErrors.phoneProviderDisabled('Unsupported phone provider');
      const phone = validPhone(input.phone);
      const channel = channelOf(input.channel);
      return sql.begin(async (tx) => {
        let user = await findUserByPhone(tx, phone);
        const isNew = !user;
        if (!user) {
          if (!input.createUser) throw authErrors.otpSignupsDisabled();
          if (settings.disableSignup) throw authErrors.signupDisabled();
          user = await insertPhoneUser(tx, {
            phone,
            passwordHash: null,
            confirmed: settings.autoconfirm,
            userMetadata: isObject(input.data) ? input.data : {},
          }).catch(phoneTaken);
          if (!user) throw authErrors.phoneExists();
        }
        const messageId = await send(tx, user.id, 'confirmation', phone, channel);
        // GoTrue answers a sign-up through /otp with `{}` and a known number with the provider's message id.
        return isNew ? {} : { message_id: messageId };
      });
    },

    /** POST /verify {type: sms | phone_change, phone, token}: confirms the number (or moves to it), a session. */
    async verify(input: { type: PhoneVerifyType; phone: unknown; token: unknown }, meta: RequestMeta) {
      const phone = validPhone(input.phone);
      const token = typeof input.token === 'string' ? input.token.trim() : '';
      const purpose: PhoneCodePurpose = input.type === 'sms' ? 'confirmation' : 'phone_change';
      const user = await sql.begin(async (tx) => {
        const userId = await codes.consume(tx, phone, purpose, token);
        const holder = userId ? await users.findUserById(tx, userId) : undefined;
        if (!holder) throw authErrors.tokenExpired();
        if (holder.banned_until && holder.banned_until > new Date()) throw bannedOnVerify();
        return setPhone(tx, holder.id, phone, true).catch(phoneTaken);
      });
      return auth.signInAs(user, 'otp', meta);
    },

    /** POST /resend {type: sms | phone_change, phone} (or an e-mail address for phone_change). */
    async resend(input: { type: PhoneVerifyType; phone?: unknown; email?: unknown }): Promise<{ message_id?: string }> {
      if (input.type === 'sms' && !present(input.phone)) {
        throw authErrors.validation('Type provided requires a phone number');
      }
      if (present(input.email) && present(input.phone)) {
        throw authErrors.validation('Only an email address or phone number should be provided.');
      }
      if (!present(input.email) && !present(input.phone)) {
        throw authErrors.validation('Missing email address or phone number');
      }
      let user: users.UserRow | undefined;
      if (present(input.phone)) {
        if (!settings.enabled) throw authErrors.phoneProviderDisabled('Phone logins are disabled');
        user = await findUserByPhone(sql, validPhone(input.phone));
      } else {
        user = typeof input.email === 'string' ? await users.findUserByEmail(sql, input.email) : undefined;
      }
      if (!user) return {};
      const holder = user;
      if (input.type === 'sms') {
        if (holder.phone_confirmed_at || !holder.phone) return {};
        const messageId = await sql.begin((tx) => send(tx, holder.id, 'confirmation', holder.phone!, 'sms'));
        return { message_id: messageId };
      }
      const pending = await codes.pendingChange(sql, holder.id);
      if (!pending) return {};
      return { message_id: await sql.begin((tx) => send(tx, holder.id, 'phone_change', pending, 'sms')) };
    },

    /**
     * PUT /user {phone, channel?}: with auto-confirm the number is set at once; otherwise a code goes to the new
     * number and the answer's user shows it as `new_phone` until verified (type `phone_change`).
     */
    async changePhone(claims: Claims, phoneInput: unknown, channelInput: unknown): Promise<Record<string, unknown>> {
      const phone = validPhone(phoneInput);
      const channel = channelOf(channelInput);
      if (!settings.enabled) throw authErrors.phoneProviderDisabled('Unsupported phone provider');
      const { userId, sessionId } = subject(claims);
      const { user, sessionExists } = await users.findUserBySession(sql, userId, sessionId);
      if (!user) throw authErrors.userNotFound();
      if (!sessionExists) throw authErrors.sessionNotFound();
      if (user.phone === phone) return {};
      const holder = await findUserByPhone(sql, phone);
      if (holder && holder.id !== user.id) throw authErrors.phoneExists();
      if (settings.autoconfirm) {
        await sql.begin((tx) => setPhone(tx, user.id, phone, true)).catch(phoneTaken);
        return {};
      }
      await sql.begin((tx) => send(tx, user.id, 'phone_change', phone, channel));
      return { new_phone: phone, phone_change_sent_at: new Date().toISOString() };
    },
  };
}

export type PhoneAuthService = ReturnType<typeof createPhoneAuthService>;
