// SQL for auth.webauthn_credentials: passkeys (factor_id null) and the keys of WebAuthn MFA factors.
import type postgres from 'postgres';

export interface CredentialRow {
  id: string;
  user_id: string;
  factor_id: string | null;
  credential_id: string;
  public_key: Uint8Array;
  sign_count: string;
  transports: string[];
  friendly_name: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** A passkey as GoTrue lists it: empty names and unused dates left out. */
export interface PasskeyJson {
  id: string;
  friendly_name?: string;
  created_at: string;
  last_used_at?: string;
}

export interface NewCredential {
  userId: string;
  factorId?: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  aaguid: string | null;
  backupEligible: boolean;
  backedUp: boolean;
  friendlyName: string;
}

type Sql = postgres.Sql | postgres.TransactionSql;

const COLUMNS = `id, user_id, factor_id, credential_id, public_key, sign_count, transports, friendly_name, created_at,
  last_used_at`;

const NIL_AAGUID = '00000000-0000-0000-0000-000000000000';

export function passkeyJson(row: CredentialRow): PasskeyJson {
  return {
    id: row.id,
    ...(row.friendly_name ? { friendly_name: row.friendly_name } : {}),
    created_at: row.created_at.toISOString(),
    ...(row.last_used_at ? { last_used_at: row.last_used_at.toISOString() } : {}),
  };
}

export async function listPasskeys(sql: Sql, userId: string): Promise<CredentialRow[]> {
  return sql.unsafe<CredentialRow[]>(
    `select ${COLUMNS} from auth.webauthn_credentials where user_id = $1 and factor_id is null order by created_at`,
    [userId],
  );
}

/** Every credential of the user, passkeys and factor keys: what a new registration must not repeat. */
export async function listAllCredentials(sql: Sql, userId: string): Promise<CredentialRow[]> {
  return sql.unsafe<CredentialRow[]>(
    `select ${COLUMNS} from auth.webauthn_credentials where user_id = $1 order by created_at`,
    [userId],
  );
}

export async function findPasskey(sql: Sql, userId: string, id: string): Promise<CredentialRow | undefined> {
  const [row] = await sql.unsafe<CredentialRow[]>(
    `select ${COLUMNS} from auth.webauthn_credentials where id = $1 and user_id = $2 and factor_id is null`,
    [id, userId],
  );
  return row;
}

export async function findByCredentialId(sql: Sql, credentialId: string): Promise<CredentialRow | undefined> {
  const [row] = await sql.unsafe<CredentialRow[]>(
    `select ${COLUMNS} from auth.webauthn_credentials where credential_id = $1`,
    [credentialId],
  );
  return row;
}

export async function findFactorCredential(sql: Sql, factorId: string): Promise<CredentialRow | undefined> {
  const [row] = await sql.unsafe<CredentialRow[]>(
    `select ${COLUMNS} from auth.webauthn_credentials where factor_id = $1`,
    [factorId],
  );
  return row;
}

/** Inserts the credential; undefined when its credential id (or the factor's key) is already registered. */
export async function insertCredential(sql: Sql, c: NewCredential): Promise<CredentialRow | undefined> {
  // "on conflict do nothing" rather than catching 23505, which would abort the caller's transaction.
  const [row] = await sql.unsafe<CredentialRow[]>(
    `insert into auth.webauthn_credentials (user_id, factor_id, credential_id, public_key, sign_count, transports,
       aaguid, backup_eligible, backed_up, friendly_name)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10)
     on conflict do nothing
     returning ${COLUMNS}`,
    [
      c.userId,
      c.factorId ?? null,
      c.credentialId,
      Buffer.from(c.publicKey),
      c.signCount,
      JSON.stringify(c.transports),
      c.aaguid && c.aaguid !== NIL_AAGUID ? c.aaguid : null,
      c.backupEligible,
      c.backedUp,
      c.friendlyName,
    ],
  );
  return row;
}

/**
 * Records a verified assertion: the new signature counter and the time. The counter must rise (unless the
 * authenticator keeps none: 0 both before and after), checked in the update itself so two assertions racing with
 * the same counter cannot both pass. False when it did not rise.
 */
export async function recordUse(sql: Sql, id: string, newCount: number): Promise<boolean> {
  const rows = await sql`
    update auth.webauthn_credentials set sign_count = ${newCount}, last_used_at = now(), updated_at = now()
    where id = ${id} and (sign_count < ${newCount} or (sign_count = 0 and ${newCount}::bigint = 0))
    returning id`;
  return rows.length === 1;
}
