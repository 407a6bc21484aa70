// Who may do what on a channel: public channels by the REALTIME_PUBLIC_CHANNELS setting, private ones by the
// row-level security policies on realtime.messages (realtime.authorize: SELECT to read, INSERT to write, per
// extension, checked in a transaction that is rolled back). The answer is kept on the channel (per connection
// and topic) until the next join or token refresh.
import type postgres from 'postgres';
import type { Claims } from '@auction-ops/auth-core';
import { reasons } from './realtime-errors.js';

/** `signed-in`: API-key-only connections join nothing; `anyone`: they join public channels; `off`: private only. */
export type PublicChannels = 'signed-in' | 'anyone' | 'off';
export const PUBLIC_CHANNELS_SETTINGS: readonly PublicChannels[] = ['signed-in', 'anyone', 'off'];

type Extension = 'broadcast' | 'presence';

export interface TopicGrants {
  read: ReadonlySet<Extension>;
  write: ReadonlySet<Extension>;
}

/** Everything: public channels are open to whoever may join them. */
export const PUBLIC_GRANTS: TopicGrants = {
  read: new Set(['broadcast', 'presence']),
  write: new Set(['broadcast', 'presence']),
};

function requestRole(claims: Claims): 'anon' | 'authenticated' | 'service_role' {
  return claims.role === 'service_role' || claims.role === 'authenticated' ? claims.role : 'anon';
}

/** Why the claims may not join (or send to) a channel of this kind at all; undefined when policies decide. */
export function admissionRefusal(setting: PublicChannels, claims: Claims, isPrivate: boolean): string | undefined {
  if (setting === 'signed-in' && requestRole(claims) === 'anon') return reasons.signInRequired;
  if (setting === 'off' && !isPrivate) return reasons.privateOnly;
  return undefined;
}

/** What the policies on realtime.messages let the claims do on the topic (`realtime:` prefix optional). */
export async function authorizeTopic(sql: postgres.Sql, topic: string, claims: Claims): Promise<TopicGrants> {
  const rows = await sql<{ kind: Extension; may_read: boolean; may_write: boolean }[]>`
    select kind, may_read, may_write
      from realtime.authorize(${topic.replace(/^realtime:/, '')}, ${requestRole(claims)},
                              ${JSON.stringify(claims)}::text::jsonb)`;
  return {
    read: new Set(rows.filter((r) => r.may_read).map((r) => r.kind)),
    write: new Set(rows.filter((r) => r.may_write).map((r) => r.kind)),
  };
}
