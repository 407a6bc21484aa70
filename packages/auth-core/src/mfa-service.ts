// TOTP multi-factor authentication (GoTrue's /factors API): enroll, challenge, verify, unenroll. Verifying a
// challenge raises the caller's session to aal2 and appends `totp` to its amr; both live on the session row, so
// refreshed tokens keep them. Secrets are stored sealed (mfa-secret-box.ts).
import type postgres from 'postgres';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { AuthService } from './auth-service.js';
import { authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import type { SecretBox } from './mfa-secret-box.js';
import { raiseToAal2 } from './mfa-session.js';
import { validIp } from './session-store.js';
import type { SessionJson } from './user-view.js';
import { sessionCaller } from './session-caller.js';
import { isUniqueViolation } from './sqlstate.js';

export interface MfaSettings {
  /** The issuer shown in authenticator apps when the client names none (the public host). */
  defaultIssuer: string;
  maxFactors: number;
  challengeSeconds: number;
}

interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  status: 'verified' | 'unverified';
  secret: string;
  last_step: string;
}

const PERIOD = 30;

function totpFor(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

export function createMfaService(sql: postgres.Sql, auth: AuthService, box: SecretBox, settings: MfaSettings) {
  async function factorOf(userId: string, factorId: string): Promise<FactorRow> {
    if (!/^[0-9a-f-]{36}$/i.test(factorId)) throw authErrors.mfaFactorNotFound();
    const [row] = await sql<FactorRow[]>`
      select id, user_id, friendly_name, status, secret, last_step from auth.mfa_factors
      where id = ${factorId} and user_id = ${userId}`;
    if (!row) throw authErrors.mfaFactorNotFound();
    return row;
  }

  return {
    async enroll(claims: Claims, input: { factor_type?: unknown; friendly_name?: unknown; issuer?: unknown }) {
      const { user } = await sessionCaller(sql, claims);
      if (input.factor_type !== 'totp') throw authErrors.validation('factor_type needs to be totp');
      const name = typeof input.friendly_name === 'string' ? input.friendly_name.slice(0, 255) : '';
      const issuer =
        typeof input.issuer === 'string' && input.issuer ? input.issuer.slice(0, 255) : settings.defaultIssuer;
      const existing = user.factors ?? [];
      if (name && existing.some((f) => f.friendly_name === name)) throw authErrors.mfaFactorNameConflict(name);
      if (existing.length >= settings.maxFactors) throw authErrors.tooManyFactors();
      // A second factor cannot be added by someone holding only the password.
      if (existing.some((f) => f.status === 'verified') && claims.aal !== 'aal2') {
        throw authErrors.insufficientAal(403, 'AAL2 required to enroll a new factor');
      }
      const secret = new Secret({ size: 20 }).base32;
      const id = crypto.randomUUID();
      await sql`
        insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, secret)
        values (${id}, ${user.id}, ${name || null}, 'totp', ${box.seal(id, secret)})`.catch((error) => {
        if (isUniqueViolation(error)) throw authErrors.mfaFactorNameConflict(name);
        throw error;
      });
      const uri = totpFor(secret, issuer, user.email ?? user.id).toString();
      // auth-js prefixes the SVG with `data:image/svg+xml;utf-8,` itself, as it does for GoTrue's answer.
      const qr = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
      return {
        id,
        type: 'totp' as const,
        friendly_name: name,
        totp: { qr_code: qr, secret, uri },
      };
    },

    async challenge(claims: Claims, factorId: string, ip: string | undefined) {
      const { user } = await sessionCaller(sql, claims);
      const factor = await factorOf(user.id, factorId);
      const [row] = await sql<Array<{ id: string; expires_at: number }>>`
        insert into auth.mfa_challenges (factor_id, ip) values (${factor.id}, ${validIp(ip)})
        returning id, extract(epoch from created_at)::bigint + ${settings.challengeSeconds}::int as expires_at`;
      return { id: row!.id, type: 'totp' as const, expires_at: Number(row!.expires_at) };
    },

    async verify(
      claims: Claims,
      factorId: string,
      input: { challenge_id?: unknown; code?: unknown },
      ip: string | undefined,
    ): Promise<SessionJson> {
      const { user, sessionId } = await sessionCaller(sql, claims);
      const factor = await factorOf(user.id, factorId);
      if (typeof input.challenge_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(input.challenge_id)) {
        throw authErrors.validation('challenge_id is required');
      }
      const [challenge] = await sql<Array<{ expired: boolean; same_ip: boolean }>>`
        select created_at < now() - make_interval(secs => ${settings.challengeSeconds}) as expired,
          (ip is not distinct from ${validIp(ip)}::inet) as same_ip
        from auth.mfa_challenges where id = ${input.challenge_id} and factor_id = ${factor.id} and verified_at is null`;
      if (!challenge) throw authErrors.mfaFactorNotFound();
      if (challenge.expired) throw authErrors.mfaChallengeExpired();
      if (!challenge.same_ip) throw authErrors.mfaIpMismatch();
      const code = typeof input.code === 'string' ? input.code.trim() : '';
      if (!/^\d{6}$/.test(code)) throw authErrors.mfaVerificationFailed();
      const totp = totpFor(box.open(factor.id, factor.secret));
      const delta = totp.validate({ token: code, window: 1 });
      if (delta === null) throw authErrors.mfaVerificationFailed();
      const step = TOTP.counter({ period: PERIOD }) + delta;
      const accepted = await sql.begin(async (tx) => {
        // The step check in the update makes a code good once even when two verifications race.
        const [used] = await tx`
          update auth.mfa_factors set status = 'verified', last_step = ${step}, updated_at = now()
          where id = ${factor.id} and last_step < ${step} returning id`;
        if (!used) return false;
        await tx`update auth.mfa_challenges set verified_at = now() where id = ${input.challenge_id as string}`;
        await raiseToAal2(tx, user.id, sessionId, 'totp');
        return true;
      });
      if (!accepted) throw authErrors.mfaVerificationFailed();
      return auth.reissue(user.id, sessionId);
    },

    async unenroll(claims: Claims, factorId: string): Promise<{ id: string }> {
      const { user } = await sessionCaller(sql, claims);
      const factor = await factorOf(user.id, factorId);
      if (factor.status === 'verified' && claims.aal !== 'aal2') {
        throw authErrors.insufficientAal(422, 'AAL2 required to unenroll verified factor');
      }
      await sql`delete from auth.mfa_factors where id = ${factor.id}`;
      return { id: factor.id };
    },
  };
}

export type MfaService = ReturnType<typeof createMfaService>;
