// Which account a SAML assertion signs in to, by GoTrue's rules for SSO: the identity `sso:<provider id>` with the
// assertion's subject; else an SSO account of the same provider with the same address; else a new SSO account.
// SSO accounts are never linked to e-mail, phone or OAuth accounts, and no other sign-in finds them by address.
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { attachIdentity, userOfIdentity } from './identity-repository.js';
import { findUserById, normalizeEmail, type UserRow } from './user-repository.js';

interface SsoClaims {
  /** The provider's stable id of the user (subject-id attribute, or a non-transient NameID). */
  subject: string;
  email: string;
  /** Claims from the provider's attribute mapping. */
  mapped: Record<string, unknown>;
  /** The identity provider's entity id. */
  issuer: string;
}

const ssoProviderName = (providerId: string) => `sso:${providerId}`;

/** identity_data and user_metadata of an SSO identity: GoTrue's provider claims, unmapped attributes aside. */
function identityData(claims: SsoClaims): Record<string, unknown> {
  const custom = Object.fromEntries(Object.entries(claims.mapped).filter(([key]) => key !== 'email'));
  return {
    iss: claims.issuer,
    sub: claims.subject,
    provider_id: claims.subject,
    email: claims.email,
    email_verified: true,
    phone_verified: false,
    ...(Object.keys(custom).length > 0 ? { custom_claims: custom } : {}),
  };
}

export async function accountForSso(
  sql: postgres.Sql,
  providerId: string,
  claims: SsoClaims,
  options: { disableSignup: boolean },
): Promise<UserRow> {
  const provider = ssoProviderName(providerId);
  const data = identityData(claims);
  const email = normalizeEmail(claims.email);
  const user = await sql.begin(async (tx) => {
    const holder = await userOfIdentity(tx, provider, claims.subject, data);
    if (holder) return holder;
    const [sameAddress] = await tx<Array<{ id: string }>>`
      select distinct u.id from auth.users u join auth.identities i on i.user_id = u.id
      where u.is_sso_user and u.deleted_at is null and i.provider = ${provider} and lower(u.email) = ${email}`;
    if (sameAddress) {
      await attachIdentity(tx, sameAddress.id, provider, claims.subject, data);
      return findUserById(tx, sameAddress.id);
    }
    if (options.disableSignup) throw authErrors.signupDisabled();
    const appMeta = { provider, providers: [provider] };
    const [created] = await tx<Array<{ id: string }>>`
      insert into auth.users (email, email_confirmed_at, raw_user_meta_data, raw_app_meta_data, is_sso_user)
      values (${email}, now(), ${tx.json(data as postgres.JSONValue)}, ${tx.json(appMeta)}, true)
      returning id`;
    await attachIdentity(tx, created!.id, provider, claims.subject, data);
    return findUserById(tx, created!.id);
  });
  if (!user) throw authErrors.userNotFound();
  if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
  return user;
}
