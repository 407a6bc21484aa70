// WebAuthn as an MFA factor beside TOTP (GoTrue's /factors with factor_type 'webauthn'). Enrolling makes an
// unverified factor without a key; its first challenge hands out creation options and its verification stores the
// new key (factor verified); later challenges ask that key for an assertion. Every successful verification raises
// the caller's session to aal2 with amr `mfa/webauthn`, and ends the user's sessions still at aal1 (as GoTrue and
// mfa-service.ts for TOTP). GoTrue takes rpId/rpOrigins from the client here; this server uses its configured relying
// party only, so a page elsewhere cannot choose which domain a factor's key answers for.
import type postgres from 'postgres';
import { isUuid, isObject } from './auth-input.js';
import type { AuthService } from './auth-service.js';
import { authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import { sessionCaller } from './session-caller.js';
import type { SessionJson } from './user-view.js';
import {
  assertedCredentialId,
  creationOptions,
  type RelyingParty,
  requestOptions,
  verifyAssertion,
  verifyCreation,
} from './webauthn-ceremony.js';
import { challengeIdOf, createChallengeStore } from './webauthn-challenges.js';
import * as credentials from './webauthn-credentials.js';
import { webauthnErrors } from './webauthn-errors.js';
import { isUniqueViolation } from './sqlstate.js';

export interface WebAuthnFactorSettings {
  enrollEnabled: boolean;
  verifyEnabled: boolean;
  relyingParty: RelyingParty;
  maxFactors: number;
}

interface FactorRow {
  id: string;
  user_id: string;
  status: 'verified' | 'unverified';
}

export function createWebAuthnFactorService(sql: postgres.Sql, auth: AuthService, settings: WebAuthnFactorSettings) {
  const rp = settings.relyingParty;
  const challenges = createChallengeStore(sql, rp.challengeSeconds);

  async function factorOf(userId: string, factorId: string): Promise<FactorRow> {
    const [row] = isUuid(factorId)
      ? await sql<FactorRow[]>`
          select id, user_id, status from auth.mfa_factors
          where id = ${factorId} and user_id = ${userId} and factor_type = 'webauthn'`
      : [];
    if (!row) throw authErrors.mfaFactorNotFound();
    return row;
  }

  return {
    /** Whether `factorId` names a WebAuthn factor (of anyone): the factor routes send those here. */
    async isWebAuthnFactor(factorId: string): Promise<boolean> {
      if (!isUuid(factorId)) return false;
      const rows = await sql`select 1 from auth.mfa_factors where id = ${factorId} and factor_type = 'webauthn'`;
      return rows.length > 0;
    },

    async enroll(claims: Claims, input: Record<string, unknown>) {
      if (!settings.enrollEnabled) throw webauthnErrors.factorEnrollDisabled();
      const { user } = await sessionCaller(sql, claims);
      const name = typeof input.friendly_name === 'string' ? input.friendly_name.slice(0, 255) : '';
      const existing = user.factors ?? [];
      if (name && existing.some((f) => f.friendly_name === name)) throw authErrors.mfaFactorNameConflict(name);
      if (existing.length >= settings.maxFactors) throw authErrors.tooManyFactors();
      if (existing.some((f) => f.status === 'verified') && claims.aal !== 'aal2') {
        throw authErrors.insufficientAal(403, 'AAL2 required to enroll a new factor');
      }
      const [row] = await sql<Array<{ id: string }>>`
        insert into auth.mfa_factors (user_id, friendly_name, factor_type, secret)
        values (${user.id}, ${name || null}, 'webauthn', null) returning id`.catch((error) => {
        if (isUniqueViolation(error)) throw authErrors.mfaFactorNameConflict(name);
        throw error;
      });
      return { id: row!.id, type: 'webauthn' as const, friendly_name: name };
    },

    async challenge(claims: Claims, factorId: string, ip: string | undefined) {
      if (!settings.verifyEnabled) throw webauthnErrors.factorVerifyDisabled();
      const { user } = await sessionCaller(sql, claims);
      const factor = await factorOf(user.id, factorId);
      const owner = { userId: user.id, factorId: factor.id, ip };
      if (factor.status === 'unverified') {
        const exclude = await credentials.listAllCredentials(sql, user.id);
        const publicKey = await creationOptions(rp, user, exclude, 'discouraged');
        const issued = await challenges.issue('factor_create', publicKey.challenge, owner);
        return {
          id: issued.id,
          type: 'webauthn' as const,
          expires_at: issued.expiresAt,
          webauthn: { type: 'create' as const, credential_options: { publicKey } },
        };
      }
      const key = await credentials.findFactorCredential(sql, factor.id);
      if (!key) throw authErrors.mfaFactorNotFound();
      const publicKey = await requestOptions(rp, [key]);
      const issued = await challenges.issue('factor_request', publicKey.challenge, owner);
      return {
        id: issued.id,
        type: 'webauthn' as const,
        expires_at: issued.expiresAt,
        webauthn: { type: 'request' as const, credential_options: { publicKey } },
      };
    },

    async verify(
      claims: Claims,
      factorId: string,
      input: Record<string, unknown>,
      ip: string | undefined,
    ): Promise<SessionJson> {
      if (!settings.verifyEnabled) throw webauthnErrors.factorVerifyDisabled();
      const { user, sessionId } = await sessionCaller(sql, claims);
      const factor = await factorOf(user.id, factorId);
      const params = input.webauthn;
      if (!isObject(params)) throw authErrors.validation('WebAuthn config required');
      if (params.type !== 'create' && params.type !== 'request') {
        throw authErrors.validation('WebAuthn type must be create or request');
      }
      if (!isObject(params.credential_response)) throw authErrors.validation('credential_response required');
      const challengeId = challengeIdOf(input.challenge_id);
      const challenge = await challenges.consume(challengeId, ['factor_create', 'factor_request'], {
        userId: user.id,
        factorId: factor.id,
        ip,
      });
      if (!challenge) throw authErrors.mfaFactorNotFound();
      if (challenge.expired) throw authErrors.mfaChallengeExpired();
      if (!challenge.sameIp) throw authErrors.mfaIpMismatch();
      const expected = factor.status === 'unverified' ? 'factor_create' : 'factor_request';
      if (challenge.purpose !== expected || params.type !== (expected === 'factor_create' ? 'create' : 'request')) {
        throw webauthnErrors.verificationFailed();
      }

      if (expected === 'factor_create') {
        const verified = await verifyCreation(rp, params.credential_response, challenge.challenge);
        await sql.begin(async (tx) => {
          const stored = await credentials.insertCredential(tx, {
            ...verified,
            userId: user.id,
            factorId: factor.id,
            friendlyName: '',
          });
          if (!stored) throw webauthnErrors.credentialExists();
          await tx`update auth.mfa_factors set status = 'verified', updated_at = now() where id = ${factor.id}`;
          // As GoTrue: once one WebAuthn factor is set up, other half-enrolled ones are dropped.
          await tx`
            delete from auth.mfa_factors
            where user_id = ${user.id} and factor_type = 'webauthn' and status = 'unverified' and id <> ${factor.id}`;
          await raiseToAal2(tx, user.id, sessionId);
        });
      } else {
        const key = await credentials.findFactorCredential(sql, factor.id);
        // Only this factor's key answers for it: another credential (a passkey, another user's) is refused.
        if (!key || assertedCredentialId(params.credential_response) !== key.credential_id) {
          throw webauthnErrors.verificationFailed();
        }
        const counter = await verifyAssertion(rp, params.credential_response, challenge.challenge, key);
        await sql.begin(async (tx) => {
          if (!(await credentials.recordUse(tx, key.id, counter))) throw webauthnErrors.verificationFailed();
          await raiseToAal2(tx, user.id, sessionId);
        });
      }
      return auth.reissue(user.id, sessionId);
    },
  };
}

async function raiseToAal2(tx: postgres.TransactionSql, userId: string, sessionId: string): Promise<void> {
  const amr = [{ method: 'mfa/webauthn', timestamp: Math.floor(Date.now() / 1000) }];
  await tx`
    update auth.sessions set aal = 'aal2', amr = amr || ${tx.json(amr)}::jsonb, updated_at = now()
    where id = ${sessionId}`;
  await tx`delete from auth.sessions where user_id = ${userId} and aal = 'aal1'`;
}

export type WebAuthnFactorService = ReturnType<typeof createWebAuthnFactorService>;
