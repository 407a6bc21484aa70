// Single-use WebAuthn challenges. Options handed to a browser carry a random challenge, stored here with its purpose,
// its owner and an expiry; the first verification that names it deletes it, whether or not the credential then
// verifies, so a challenge never signs twice (a replayed assertion finds nothing).
import { isUuid } from './auth-input.js';
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { validIp } from './session-store.js';
import { webauthnErrors } from './webauthn-errors.js';

type ChallengePurpose = 'registration' | 'authentication' | 'factor_create' | 'factor_request';

interface ChallengeOwner {
  userId?: string;
  factorId?: string;
  ip?: string;
}

interface ConsumedChallenge {
  purpose: ChallengePurpose;
  challenge: string;
  userId: string | null;
  factorId: string | null;
  sameIp: boolean;
  expired: boolean;
}

/** The `challenge_id` of a verification body, as GoTrue checks it: present, then a UUID. */
export function challengeIdOf(value: unknown): string {
  if (value === undefined || value === null || value === '') throw authErrors.validation('challenge_id is required');
  if (!isUuid(value)) throw authErrors.validation('challenge_id must be a valid UUID');
  return value;
}

export function createChallengeStore(sql: postgres.Sql, lifetimeSeconds: number) {
  return {
    /** Stores a challenge; answers its id and expiry (Unix seconds) for the options response. */
    async issue(
      purpose: ChallengePurpose,
      challenge: string,
      owner: ChallengeOwner = {},
    ): Promise<{ id: string; expiresAt: number }> {
      // Ceremonies never finished leave rows behind: each new one sweeps those expired for an hour (an indexed delete).
      await sql`delete from auth.webauthn_challenges where expires_at < now() - interval '1 hour'`;
      const [row] = await sql<Array<{ id: string; expires_at: string }>>`
        insert into auth.webauthn_challenges (purpose, user_id, factor_id, challenge, ip, expires_at)
        values (${purpose}, ${owner.userId ?? null}, ${owner.factorId ?? null}, ${challenge}, ${validIp(owner.ip)},
          now() + make_interval(secs => ${lifetimeSeconds}))
        returning id, extract(epoch from expires_at)::bigint as expires_at`;
      return { id: row!.id, expiresAt: Number(row!.expires_at) };
    },

    /**
     * Deletes and answers the challenge `id` of one of `purposes` issued to `owner` (user and factor when given);
     * undefined when there is none (unknown, already used, or someone else's).
     */
    async consume(
      id: string,
      purposes: ChallengePurpose[],
      owner: ChallengeOwner = {},
    ): Promise<ConsumedChallenge | undefined> {
      const [row] = await sql<
        Array<{
          purpose: ChallengePurpose;
          challenge: string;
          user_id: string | null;
          factor_id: string | null;
          same_ip: boolean;
          expired: boolean;
        }>
      >`
        delete from auth.webauthn_challenges
        where id = ${id} and purpose = any(${purposes}::text[])
          and (${owner.userId ?? null}::uuid is null or user_id = ${owner.userId ?? null}::uuid)
          and (${owner.factorId ?? null}::uuid is null or factor_id = ${owner.factorId ?? null}::uuid)
        returning purpose, challenge, user_id, factor_id, expires_at < now() as expired,
          (ip is not distinct from ${validIp(owner.ip)}::inet) as same_ip`;
      if (!row) return undefined;
      return {
        purpose: row.purpose,
        challenge: row.challenge,
        userId: row.user_id,
        factorId: row.factor_id,
        sameIp: row.same_ip,
        expired: row.expired,
      };
    },
  };
}

type ChallengeStore = ReturnType<typeof createChallengeStore>;

/** A passkey ceremony's challenge, or GoTrue's passkey errors: not found (also used or another's), expired. */
export async function consumePasskeyChallenge(
  store: ChallengeStore,
  id: string,
  purpose: 'registration' | 'authentication',
  userId?: string,
): Promise<ConsumedChallenge> {
  const consumed = await store.consume(id, [purpose], { userId });
  if (!consumed) throw webauthnErrors.challengeNotFound();
  if (consumed.expired) throw webauthnErrors.challengeExpired();
  return consumed;
}
