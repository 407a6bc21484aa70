// Passkeys (GoTrue's /passkeys): a signed-in user registers discoverable WebAuthn credentials, lists, renames and
// removes them; anyone signs in with one (the assertion names the credential and its user), getting a normal
// session at aal1 with amr `passkey`, as GoTrue issues it. Credentials of MFA factors are not passkeys and never
// sign anyone in here.
import type postgres from 'postgres';
import { isUuid, isObject } from './auth-input.js';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { authErrors } from './errors.js';
import type { Claims } from './jwt.js';
import { hasVerifiedFactor, sessionCaller } from './session-caller.js';
import type { SessionJson } from './user-view.js';
import * as users from './user-repository.js';
import {
  assertedCredentialId,
  assertedUserHandle,
  creationOptions,
  type RelyingParty,
  requestOptions,
  verifyAssertion,
  verifyCreation,
} from './webauthn-ceremony.js';
import { challengeIdOf, consumePasskeyChallenge, createChallengeStore } from './webauthn-challenges.js';
import * as credentials from './webauthn-credentials.js';
import { webauthnErrors } from './webauthn-errors.js';

export interface PasskeySettings {
  enabled: boolean;
  relyingParty: RelyingParty;
  maxPerUser: number;
}

export function createPasskeyService(sql: postgres.Sql, auth: AuthService, settings: PasskeySettings) {
  const rp = settings.relyingParty;
  const challenges = createChallengeStore(sql, rp.challengeSeconds);

  /** A caller who may add or remove passkeys: not anonymous, and at aal2 once they have a verified factor. */
  async function manager(claims: Claims): Promise<users.UserRow> {
    const { user } = await sessionCaller(sql, claims);
    if (user.is_anonymous) throw webauthnErrors.anonymousNotAllowed();
    if (hasVerifiedFactor(user) && claims.aal !== 'aal2') throw webauthnErrors.insufficientAal();
    return user;
  }

  async function ownPasskey(userId: string, passkeyId: string): Promise<credentials.CredentialRow> {
    const row = isUuid(passkeyId) ? await credentials.findPasskey(sql, userId, passkeyId) : undefined;
    if (!row) throw webauthnErrors.passkeyNotFound();
    return row;
  }

  async function userOf(userId: string): Promise<users.UserRow> {
    const user = isUuid(userId) ? await users.findUserById(sql, userId) : undefined;
    if (!user) throw authErrors.userNotFound();
    return user;
  }

  return {
    enabled: settings.enabled,

    async registrationOptions(claims: Claims) {
      const user = await manager(claims);
      const existing = await credentials.listAllCredentials(sql, user.id);
      if (existing.filter((c) => !c.factor_id).length >= settings.maxPerUser) throw webauthnErrors.tooManyPasskeys();
      const options = await creationOptions(rp, user, existing, 'required');
      const issued = await challenges.issue('registration', options.challenge, { userId: user.id });
      return { challenge_id: issued.id, options, expires_at: issued.expiresAt };
    },

    async verifyRegistration(claims: Claims, input: Record<string, unknown>) {
      const user = await manager(claims);
      const challengeId = challengeIdOf(input.challenge_id);
      if (!isObject(input.credential)) throw authErrors.validation('credential is required');
      const challenge = await consumePasskeyChallenge(challenges, challengeId, 'registration', user.id);
      const verified = await verifyCreation(rp, input.credential, challenge.challenge);
      const created = await sql.begin(async (tx) => {
        // The count again, under a lock on the user, so parallel registrations cannot pass the limit together.
        await tx`select id from auth.users where id = ${user.id} for update`;
        if ((await credentials.listPasskeys(tx, user.id)).length >= settings.maxPerUser) {
          throw webauthnErrors.tooManyPasskeys();
        }
        return credentials.insertCredential(tx, { ...verified, userId: user.id, friendlyName: 'Passkey' });
      });
      if (!created) throw webauthnErrors.credentialExists();
      const { last_used_at: _unused, ...metadata } = credentials.passkeyJson(created);
      return metadata;
    },

    async authenticationOptions() {
      const options = await requestOptions(rp, []);
      const issued = await challenges.issue('authentication', options.challenge);
      return { challenge_id: issued.id, options, expires_at: issued.expiresAt };
    },

    async verifyAuthentication(input: Record<string, unknown>, meta: RequestMeta): Promise<SessionJson> {
      const challengeId = challengeIdOf(input.challenge_id);
      if (!isObject(input.credential)) throw authErrors.validation('credential is required');
      const challenge = await consumePasskeyChallenge(challenges, challengeId, 'authentication');
      const stored = await credentials.findByCredentialId(sql, assertedCredentialId(input.credential));
      // Unknown, removed, or an MFA factor's key: all the same failure, as is a user handle naming someone else.
      if (!stored || stored.factor_id) throw webauthnErrors.verificationFailed();
      if (assertedUserHandle(input.credential) !== stored.user_id) throw webauthnErrors.verificationFailed();
      const counter = await verifyAssertion(rp, input.credential, challenge.challenge, stored);
      const user = await users.findUserById(sql, stored.user_id);
      if (!user) throw webauthnErrors.verificationFailed();
      if (user.email && !user.email_confirmed_at) throw webauthnErrors.emailNotConfirmed();
      if (user.banned_until && user.banned_until > new Date()) throw webauthnErrors.userBanned();
      if (!(await credentials.recordUse(sql, stored.id, counter))) throw webauthnErrors.verificationFailed();
      return auth.signInAs(user, 'passkey', meta);
    },

    async list(claims: Claims): Promise<credentials.PasskeyJson[]> {
      const { user } = await sessionCaller(sql, claims);
      return (await credentials.listPasskeys(sql, user.id)).map(credentials.passkeyJson);
    },

    async rename(claims: Claims, passkeyId: string, input: Record<string, unknown>) {
      const { user } = await sessionCaller(sql, claims);
      const name = input.friendly_name;
      if (typeof name !== 'string' || !name) throw authErrors.validation('friendly_name is required');
      if ([...name].length > 120) throw authErrors.validation('friendly_name must be 120 characters or less');
      const row = await ownPasskey(user.id, passkeyId);
      const [updated] = await sql<credentials.CredentialRow[]>`
        update auth.webauthn_credentials set friendly_name = ${name}, updated_at = now()
        where id = ${row.id} returning *`;
      return credentials.passkeyJson(updated!);
    },

    async remove(claims: Claims, passkeyId: string): Promise<void> {
      const user = await manager(claims);
      const row = await ownPasskey(user.id, passkeyId);
      await sql`delete from auth.webauthn_credentials where id = ${row.id}`;
    },

    /** GET /admin/users/{id}/passkeys (service role). */
    async adminList(userId: string): Promise<credentials.PasskeyJson[]> {
      const user = await userOf(userId);
      return (await credentials.listPasskeys(sql, user.id)).map(credentials.passkeyJson);
    },

    /** DELETE /admin/users/{id}/passkeys/{passkey_id} (service role). */
    async adminRemove(userId: string, passkeyId: string): Promise<void> {
      const user = await userOf(userId);
      const row = await ownPasskey(user.id, passkeyId);
      await sql`delete from auth.webauthn_credentials where id = ${row.id}`;
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
