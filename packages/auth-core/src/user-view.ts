// The JSON shapes auth-js reads: the user object and the session response.
import type { UserRow } from './user-repository.js';

export interface UserJson {
  id: string;
  aud: string;
  role: string;
  email: string;
  [key: string]: unknown;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

export function userJson(user: UserRow): UserJson {
  return {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? '',
    email_confirmed_at: iso(user.email_confirmed_at),
    phone: user.phone ?? '',
    ...(user.phone_confirmed_at ? { phone_confirmed_at: iso(user.phone_confirmed_at) } : {}),
    confirmed_at: iso(user.email_confirmed_at ?? user.phone_confirmed_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    identities: (user.identities ?? []).map((i) => ({
      identity_id: i.id,
      id: i.provider_id,
      user_id: i.user_id,
      identity_data: i.identity_data,
      provider: i.provider,
      last_sign_in_at: iso(i.last_sign_in_at),
      created_at: iso(i.created_at),
      updated_at: iso(i.updated_at),
      email: typeof i.identity_data?.email === 'string' ? i.identity_data.email : undefined,
    })),
    created_at: iso(user.created_at)!,
    updated_at: iso(user.updated_at)!,
    is_anonymous: user.is_anonymous,
    is_sso_user: user.is_sso_user,
    // GoTrue leaves the list out when there is none; auth-js's listFactors and AAL read it.
    ...(user.factors?.length ? { factors: user.factors } : {}),
    ...(user.banned_until ? { banned_until: iso(user.banned_until) } : {}),
    ...(user.invited_at ? { invited_at: iso(user.invited_at) } : {}),
  };
}

/**
 * GoTrue's answer to a sign-up for an address or number that already has an account while confirmations are on:
 * a new-looking, unconfirmed user that exists nowhere, so the answer does not tell who has an account.
 */
export function lookAlikeUser(
  contact: { email: string; phone: string },
  provider: 'email' | 'phone',
  metadata: Record<string, unknown>,
): UserJson {
  const now = new Date().toISOString();
  return {
    id: crypto.randomUUID(),
    aud: 'authenticated',
    role: 'authenticated',
    ...contact,
    confirmation_sent_at: now,
    app_metadata: { provider, providers: [provider] },
    user_metadata: metadata,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
    is_sso_user: false,
  };
}

export interface SessionJson {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserJson;
}
