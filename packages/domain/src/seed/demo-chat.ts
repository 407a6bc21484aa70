// The demo chat: each auction's channels (some tied to a location), messages spread over the last `days` days (40
// per channel times `scale`), threads of replies, reactions, and each member's read state.
import type postgres from 'postgres';
import { AUCTIONS, CHANNELS, EMOJIS, MESSAGES, REPLIES } from './demo-data.js';
import type { SeededAuction } from './demo-auctions.js';

export async function insertChat(
  tx: postgres.TransactionSql,
  auctions: SeededAuction[],
  membersOf: Record<string, string[]>,
  now: Date,
  days: number,
  scale: number,
): Promise<void> {
  for (const [ai, auction] of auctions.entries()) {
    const members = membersOf[auction.id]!;
    const channels = ai === 0 ? CHANNELS : CHANNELS.slice(0, 1);
    for (const ch of channels) {
      await tx`insert into public.channels (auction_id, name, description, is_default, location_id, created_by,
        created_at)
        values (${auction.id}, ${ch.name}, ${ch.description}, ${ch.isDefault ?? false},
          ${
            ch.locationIndex === undefined
              ? null
              : tx`(select id from public.locations
            where auction_id = ${auction.id} and name = ${AUCTIONS[ai]!.locations[ch.locationIndex]!.name})`
          },
          ${members[0]!}, ${now}::timestamptz - make_interval(days => ${days + 1}))`;
    }
    await tx`
      insert into public.messages (auction_id, channel_id, user_id, content, message_type, created_at, updated_at)
      select c.auction_id, c.id, (${members}::uuid[])[1 + floor(random() * ${members.length})::int],
        (${MESSAGES}::text[])[1 + floor(random() * ${MESSAGES.length})::int], 'text', t.ts, t.ts
      from public.channels c
      cross join generate_series(1, ${40 * scale}) k
      -- k inside: an uncorrelated lateral subquery is evaluated once, which put every message at one instant.
      cross join lateral (select ${now}::timestamptz - make_interval(secs => random() * ${days * 86400} + k * 0) as ts) t
      where c.auction_id = ${auction.id}`;
    await tx`
      insert into public.messages (auction_id, channel_id, user_id, content, parent_message_id, created_at,
        updated_at)
      select m.auction_id, m.channel_id, (${members}::uuid[])[1 + floor(random() * ${members.length})::int],
        (${REPLIES}::text[])[1 + floor(random() * ${REPLIES.length})::int], m.id, t.ts, t.ts
      from public.messages m
      cross join lateral generate_series(1, 1 + get_byte(uuid_send(m.id), 1) % 3) r
      cross join lateral (select least(${now}::timestamptz, m.created_at + make_interval(mins => r * (5 +
        get_byte(uuid_send(m.id), 2)))) as ts) t
      where m.auction_id = ${auction.id} and m.parent_message_id is null and get_byte(uuid_send(m.id), 0) < 77`;
    await tx`
      insert into public.message_reactions (auction_id, message_id, user_id, emoji, created_at)
      select m.auction_id, m.id, (${members}::uuid[])[1 + (get_byte(uuid_send(m.id), 3) + e) % ${members.length}],
        (${EMOJIS}::text[])[1 + (get_byte(uuid_send(m.id), 4) + e) % ${EMOJIS.length}], m.created_at + interval
          '2 minutes'
      from public.messages m
      cross join generate_series(0, get_byte(uuid_send(m.id), 5) % 2) e
      where m.auction_id = ${auction.id} and get_byte(uuid_send(m.id), 6) < 102
      on conflict do nothing`;
    await tx`
      insert into public.channel_read_state (user_id, channel_id, auction_id, last_read_at)
      select u, c.id, c.auction_id, ${now}::timestamptz - make_interval(hours => floor(random() * 72)::int)
      from public.channels c cross join unnest(${members}::uuid[]) u
      where c.auction_id = ${auction.id}`;
  }
}
