// Which account an OpenID provider's answer signs in to: the holder of the identity; else, only when the provider
// verified the address, the account with that address; else a new account (docs/auth.md, "OAuth and OpenID").
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import {
  attachIdentity,
  dropUnconfirmedCredentials,
  insertProviderUser,
  userOfIdentity,
} from './identity-repository.js';
import { findUserByEmail, findUserById, normalizeEmail, type UserRow } from './user-repository.js';

export type ProviderClaims = Record<string, unknown> & { sub: string; iss?: string };

/** What GoTrue keeps of an ID token in identity_data and user_metadata. */
function identityData(claims: ProviderClaims): Record<string, unknown> {
  const pick = (k: string) => (claims[k] === undefined ? {} : { [k]: claims[k] });
  return {
    iss: claims.iss,
    sub: claims.sub,
    provider_id: claims.sub,
    ...pick('email'),
    email_verified: claims.email_verified === true || claims.email_verified === 'true',
    phone_verified: false,
    ...pick('name'),
    ...(claims.name === undefined ? {} : { full_name: claims.name }),
    ...pick('picture'),
    ...(claims.picture === undefined ? {} : { avatar_url: claims.picture }),
    ...pick('preferred_username'),
  };
}

export async function accountForProvider(
  sql: postgres.Sql,
  provider: string,
  claims: ProviderClaims,
  options: { linkUserId: string | null; disableSignup: boolean; autoconfirm: boolean },
): Promise<UserRow> {
  const data = identityData(claims);
  const user = await sql.begin(async (tx) => {
    if (options.linkUserId) {
      await attachIdentity(tx, options.linkUserId, provider, claims.sub, data);
      // Linking a provider makes an anonymous user a permanent one (GoTrue's conversion).
      await tx`update auth.users set is_anonymous = false where id = ${options.linkUserId}`;
      return findUserById(tx, options.linkUserId);
    }
    const holder = await userOfIdentity(tx, provider, claims.sub, data);
    if (holder) return holder;
    const email = typeof claims.email === 'string' && claims.email ? normalizeEmail(claims.email) : null;
    const verified = data.email_verified === true;
    const sameAddress = email ? await findUserByEmail(tx, email) : undefined;
    if (sameAddress && verified) {
      await dropUnconfirmedCredentials(tx, sameAddress);
      await attachIdentity(tx, sameAddress.id, provider, claims.sub, data);
      return findUserById(tx, sameAddress.id);
    }
    // An account is never made without the provider's address: GoTrue refuses the sign-in the same way.
    if (!email) throw authErrors.providerEmailMissing();
    if (options.disableSignup) throw authErrors.signupDisabled();
    if (email && !verified && !options.autoconfirm) throw authErrors.providerEmailNeedsVerification(provider);
    // An unverified address someone else holds is not taken over: the new account goes without an address.
    const created = await insertProviderUser(tx, {
      email: sameAddress ? null : email,
      confirmed: email !== null && !sameAddress,
      provider,
      userMetadata: data,
    });
    await attachIdentity(tx, created.id, provider, claims.sub, data);
    return findUserById(tx, created.id);
  });
  if (!user) throw authErrors.userNotFound();
  if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
  return user;
}
