// Phone factors for multi-factor authentication (GoTrue's factor_type `phone`): enrolling names a number, each
// challenge sends a six-digit code by SMS (its hash kept on the challenge, good once), and verifying it raises the
// session to aal2 with amr `mfa/phone`. Same rules as TOTP factors for names, counts and aal2 (mfa-service.ts).
import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import { authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import { raiseToAal2 } from './mfa-session.js';
import { hashToken } from './opaque-token.js';
import { smsText } from './phone-codes.js';
import { validPhone } from './phone-number.js';
import { validIp } from './session-store.js';
import type { SmsChannel, SmsSender } from './sms-sender.js';
import type { SessionJson } from './user-view.js';
import { sessionCaller } from './session-caller.js';

export interface PhoneFactorSettings {
  /** GoTrue's GOTRUE_MFA_PHONE_ENROLL_ENABLED and _VERIFY_ENABLED together. */
  enabled: boolean;
  maxFactors: number;
  challengeSeconds: number;
  maxFrequencySeconds: number;
  template: string;
}

const challengeCodeHash = (challengeId: string, code: string) => hashToken(`${challengeId}:${code}`);

export function createPhoneFactors(
  sql: postgres.Sql,
  auth: AuthService,
  sender: SmsSender,
  settings: PhoneFactorSettings,
) {
  return {
    /** Whether the factor is one of this user's phone factors (the routes hand others to mfa-service.ts). */
    async isPhoneFactor(userId: string, factorId: string): Promise<boolean> {
      if (!/^[0-9a-f-]{36}$/i.test(factorId) || !/^[0-9a-f-]{36}$/i.test(userId)) return false;
      const [row] = await sql`
        select 1 from auth.mfa_factors where id = ${factorId} and user_id = ${userId} and factor_type = 'phone'`;
      return Boolean(row);
    },

    async enroll(claims: Claims, input: { phone?: unknown; friendly_name?: unknown }) {
      if (!settings.enabled) throw authErrors.mfaPhoneDisabled('enroll');
      const { user } = await sessionCaller(sql, claims);
      if (input.phone === undefined || input.phone === '') {
        throw authErrors.validation('Phone number required to enroll Phone factor');
      }
      const phone = validPhone(input.phone);
      const existing = user.factors ?? [];
      const samePhone = existing.filter((f) => f.factor_type === 'phone' && f.phone === phone);
      if (samePhone.some((f) => f.status === 'verified')) throw authErrors.mfaVerifiedPhoneExists();
      // An unverified factor of the same number is replaced (GoTrue's rule).
      const stale = samePhone.map((f) => f.id);
      const remaining = existing.filter((f) => !stale.includes(f.id));
      const name = typeof input.friendly_name === 'string' ? input.friendly_name.slice(0, 255) : '';
      if (name && remaining.some((f) => f.friendly_name === name)) throw authErrors.mfaFactorNameConflict(name);
      if (remaining.length >= settings.maxFactors) throw authErrors.tooManyFactors();
      if (remaining.some((f) => f.status === 'verified') && claims.aal !== 'aal2') {
        throw authErrors.insufficientAal(403, 'AAL2 required to enroll a new factor');
      }
      const id = crypto.randomUUID();
      await sql.begin(async (tx) => {
        if (stale.length) await tx`delete from auth.mfa_factors where id in ${tx(stale)}`;
        await tx`
          insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, phone)
          values (${id}, ${user.id}, ${name || null}, 'phone', ${phone})`;
      });
      return { id, type: 'phone' as const, friendly_name: name, phone: String(input.phone) };
    },

    /** Sends a code to the factor's number; at most one per AUTH_MFA_PHONE_MAX_FREQUENCY. */
    async challenge(claims: Claims, factorId: string, channel: SmsChannel, ip: string | undefined) {
      if (!settings.enabled) throw authErrors.mfaPhoneDisabled('verify');
      const { user } = await sessionCaller(sql, claims);
      const id = crypto.randomUUID();
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      return sql.begin(async (tx) => {
        const [factor] = await tx<Array<{ phone: string; wait: number | null }>>`
          select phone, ceil(extract(epoch from last_challenged_at
            + make_interval(secs => ${settings.maxFrequencySeconds}) - now()))::int as wait
          from auth.mfa_factors where id = ${factorId} and user_id = ${user.id} and factor_type = 'phone'
          for update`;
        if (!factor) throw authErrors.mfaFactorNotFound();
        if (factor.wait !== null && factor.wait > 0) throw authErrors.smsTooSoon(factor.wait);
        try {
          await sender.send({ to: factor.phone, body: smsText(settings.template, code), channel });
        } catch (error) {
          throw authErrors.smsSendFailed('mfa', error instanceof Error ? error.message : String(error));
        }
        await tx`update auth.mfa_factors set last_challenged_at = now() where id = ${factorId}`;
        const [row] = await tx<Array<{ expires_at: number }>>`
          insert into auth.mfa_challenges (id, factor_id, ip, code_hash)
          values (${id}, ${factorId}, ${validIp(ip)}, ${challengeCodeHash(id, code)})
          returning extract(epoch from created_at)::bigint + ${settings.challengeSeconds}::int as expires_at`;
        return { id, type: 'phone' as const, expires_at: Number(row!.expires_at) };
      });
    },

    async verify(
      claims: Claims,
      factorId: string,
      input: { challenge_id?: unknown; code?: unknown },
      ip: string | undefined,
    ): Promise<SessionJson> {
      if (!settings.enabled) throw authErrors.mfaPhoneDisabled('verify');
      const { user, sessionId } = await sessionCaller(sql, claims);
      if (typeof input.challenge_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(input.challenge_id)) {
        throw authErrors.validation('challenge_id is required');
      }
      const challengeId = input.challenge_id;
      const code = typeof input.code === 'string' ? input.code.trim() : '';
      const accepted = await sql.begin(async (tx) => {
        const [challenge] = await tx<Array<{ expired: boolean; same_ip: boolean; code_hash: string }>>`
          select c.created_at < now() - make_interval(secs => ${settings.challengeSeconds}) as expired,
            (c.ip is not distinct from ${validIp(ip)}::inet) as same_ip, c.code_hash
          from auth.mfa_challenges c join auth.mfa_factors f on f.id = c.factor_id
          where c.id = ${challengeId} and f.id = ${factorId} and f.user_id = ${user.id} and c.verified_at is null
          for update of c`;
        if (!challenge) throw authErrors.mfaFactorNotFound();
        if (challenge.expired) throw authErrors.mfaChallengeExpired();
        if (!challenge.same_ip) throw authErrors.mfaIpMismatch();
        if (!/^\d{6}$/.test(code) || challengeCodeHash(challengeId, code) !== challenge.code_hash) return false;
        // Spent on success: the row lock above makes a code good once even when two verifications race.
        await tx`update auth.mfa_challenges set verified_at = now() where id = ${challengeId}`;
        await tx`update auth.mfa_factors set status = 'verified', updated_at = now() where id = ${factorId}`;
        await raiseToAal2(tx, user.id, sessionId, 'mfa/phone');
        return true;
      });
      if (!accepted) throw authErrors.mfaPhoneCodeFailed();
      return auth.reissue(user.id, sessionId);
    },
  };
}

export type PhoneFactors = ReturnType<typeof createPhoneFactors>;
