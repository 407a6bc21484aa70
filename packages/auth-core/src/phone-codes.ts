// SMS codes: one per user and purpose (the account's number, or a new number being changed to), six random digits
// stored only as a hash, good for AUTH_SMS_OTP_EXP seconds and once. A new code waits AUTH_SMS_MAX_FREQUENCY after
// the previous one, and each number may be sent so many per window (GoTrue's over_sms_send_rate_limit). Numbers
// of AUTH_SMS_TEST_OTP are sent nothing: their code is the configured one.
import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { hashToken } from './opaque-token.js';
import type { RateLimiter, RateLimitRule } from './rate-limiter.js';
import type { SmsChannel, SmsSender } from './sms-sender.js';

export type PhoneCodePurpose = 'confirmation' | 'phone_change';

export interface PhoneCodeSettings {
  otpSeconds: number;
  maxFrequencySeconds: number;
  /** GoTrue's template: `{{ .Code }}` is replaced by the code. */
  template: string;
  testOtps: ReadonlyMap<string, string>;
  /** Codes sent to one number per window. */
  sendLimit: RateLimitRule;
}

type Sql = postgres.Sql | postgres.TransactionSql;

/** The code is hashed with the user and the number: a bare six-digit hash would be reversed by trying all million. */
function codeHash(userId: string, phone: string, code: string): string {
  return hashToken(`${userId}:${phone}:${code}`);
}

export function smsText(template: string, code: string): string {
  return template.replace(/\{\{\s*\.Code\s*\}\}/g, code);
}

export function createPhoneCodes(sender: SmsSender, limiter: RateLimiter, settings: PhoneCodeSettings) {
  return {
    sender,

    /**
     * Sends a new code (replacing the previous one of the purpose) and returns the provider's message id. Runs in
     * the caller's transaction, so a failed send leaves nothing behind (a new user included), as in GoTrue.
     */
    async send(
      tx: Sql,
      input: { userId: string; purpose: PhoneCodePurpose; phone: string; channel: SmsChannel },
    ): Promise<string> {
      const { userId, purpose, phone, channel } = input;
      const [previous] = await tx<Array<{ wait: number }>>`
        select ceil(extract(epoch from sent_at + make_interval(secs => ${settings.maxFrequencySeconds}) - now()))::int
          as wait
        from auth.phone_codes where user_id = ${userId} and purpose = ${purpose} for update`;
      if (previous && previous.wait > 0) throw authErrors.smsTooSoon(previous.wait);
      let code = settings.testOtps.get(phone);
      let messageId = 'test-otp';
      if (code === undefined) {
        if (!(await limiter.check('sms', phone, settings.sendLimit)).allowed) throw authErrors.smsRateLimited();
        code = String(randomInt(0, 1_000_000)).padStart(6, '0');
        try {
          messageId = await sender.send({ to: phone, body: smsText(settings.template, code), channel });
        } catch (error) {
          throw authErrors.smsSendFailed(purpose, error instanceof Error ? error.message : String(error));
        }
      }
      await tx`
        insert into auth.phone_codes (user_id, purpose, phone, code_hash, sent_at, expires_at)
        values (${userId}, ${purpose}, ${phone}, ${codeHash(userId, phone, code)}, now(),
          now() + make_interval(secs => ${settings.otpSeconds}))
        on conflict (user_id, purpose) do update set phone = excluded.phone, code_hash = excluded.code_hash,
          sent_at = excluded.sent_at, expires_at = excluded.expires_at`;
      return messageId;
    },

    /**
     * Spends the code sent to `phone` for the purpose; the user it belongs to, or undefined when wrong, used or
     * expired. A test OTP is good for whichever user holds (or is changing to) its number.
     */
    async consume(sql: Sql, phone: string, purpose: PhoneCodePurpose, code: string): Promise<string | undefined> {
      if (!/^\d{4,10}$/.test(code)) return undefined;
      const [row] = await sql<Array<{ user_id: string }>>`
        delete from auth.phone_codes
        where phone = ${phone} and purpose = ${purpose} and expires_at > now()
          and code_hash = encode(extensions.digest(user_id::text || ':' || phone || ':' || ${code}, 'sha256'), 'hex')
        returning user_id`;
      if (row) return row.user_id;
      if (settings.testOtps.get(phone) !== code) return undefined;
      const [holder] =
        purpose === 'confirmation'
          ? await sql<Array<{ user_id: string }>>`
              select id as user_id from auth.users where phone = ${phone} and deleted_at is null`
          : await sql<Array<{ user_id: string }>>`
              delete from auth.phone_codes where phone = ${phone} and purpose = 'phone_change' returning user_id`;
      return holder?.user_id;
    },

    /** The number a user is changing to (a phone_change code is out), for resend and the user object. */
    async pendingChange(sql: Sql, userId: string): Promise<string | undefined> {
      const [row] = await sql<Array<{ phone: string }>>`
        select phone from auth.phone_codes where user_id = ${userId} and purpose = 'phone_change'`;
      return row?.phone;
    },
  };
}

export type PhoneCodes = ReturnType<typeof createPhoneCodes>;
