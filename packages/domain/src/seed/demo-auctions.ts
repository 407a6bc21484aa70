// The demo auctions and their people: users with e-mail identities, the two auctions with members, roles and
// branding, their locations with operating hours and team assignments, and the submission types each location uses
// in its own order.
import type postgres from 'postgres';
import { AUCTIONS, type PEOPLE, SUBMISSION_TYPES } from './demo-data.js';

type Person = (typeof PEOPLE)[number] & { email: string; password: string; hash: string };

export interface SeededAuction {
  id: string;
  name: string;
  slug: string;
  timezone: string;
}

/** The users, signed up and confirmed by e-mail, with the given password hashes; their ids by person key. */
export async function insertPeople(
  tx: postgres.TransactionSql,
  people: Person[],
  now: Date,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const p of people) {
    const [u] = await tx`
      insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data)
      values (${p.email}, ${p.hash}, ${now}, ${tx.json({ full_name: p.fullName })}) returning id`;
    ids[p.key] = u!.id as string;
    const identity = { sub: u!.id as string, email: p.email, email_verified: true, phone_verified: false };
    await tx`insert into auth.identities (user_id, provider, provider_id, identity_data)
      values (${u!.id}, 'email', ${u!.id}, ${tx.json(identity)})`;
  }
  return ids;
}

/** The auctions of AUCTIONS (slugs with `suffix`), their members with roles, and their branding. */
export async function insertAuctions(
  tx: postgres.TransactionSql,
  people: Person[],
  ids: Record<string, string>,
  suffix: string,
  now: Date,
  days: number,
) {
  const auctions: SeededAuction[] = [];
  const membersOf: Record<string, string[]> = {};
  const roles: Record<string, Record<string, string>> = Object.fromEntries(people.map((p) => [p.key, {}]));
  for (const [i, a] of AUCTIONS.entries()) {
    const slug = a.slug + suffix;
    const [row] = await tx`
      insert into public.auctions (name, slug, subscription_tier, settings, created_by)
      values (${a.name}, ${slug}, ${a.tier},
        ${tx.json({ timezone: a.timezone, members_can_create_channels: i === 0 })}, ${ids.owner!})
      returning id`;
    const auctionId = row!.id as string;
    auctions.push({ id: auctionId, name: a.name, slug, timezone: a.timezone });
    // The second auction shares its owner and admin with the first and has one team member.
    const members = i === 0 ? people : people.filter((p) => ['owner', 'admin', 'lot1'].includes(p.key));
    await tx`insert into public.auction_members (auction_id, user_id, role, joined_at)
      select ${auctionId}, u, r, ${now}::timestamptz - make_interval(days => ${days + 30})
      from unnest(${members.map((m) => ids[m.key]!)}::uuid[], ${members.map((m) => m.role)}::text[]) as x(u, r)
      on conflict (auction_id, user_id) do nothing`;
    membersOf[auctionId] = members.map((m) => ids[m.key]!);
    for (const m of members) roles[m.key]![slug] = m.role;
    await tx`insert into public.auction_branding (auction_id, app_name, primary_color, secondary_color)
      values (${auctionId}, ${a.name}, ${i === 0 ? '#1E3A8A' : '#0F766E'}, '#F59E0B')`;
  }
  return { auctions, membersOf, roles };
}

/** Each auction's locations, the team members assigned to them, its submission types and each location's choice. */
export async function insertLocations(tx: postgres.TransactionSql, auctions: SeededAuction[], now: Date, days: number) {
  for (const [i, a] of AUCTIONS.entries()) {
    const auctionId = auctions[i]!.id;
    await tx`insert into public.locations (auction_id, name, address, operating_hours_start, operating_hours_end,
      submission_frequency_minutes, created_at)
      select ${auctionId}, n, ad, s::time, e::time, f, ${now}::timestamptz - make_interval(days => ${days + 30})
      from unnest(${a.locations.map((l) => l.name)}::text[], ${a.locations.map((l) => l.address)}::text[],
        ${a.locations.map((l) => l.start ?? '')}::text[], ${a.locations.map((l) => l.end ?? '')}::text[],
        ${a.locations.map((l) => l.frequencyMinutes)}::int[]) as x(n, ad, s0, e0, f)
      cross join lateral (select nullif(s0, '') as s, nullif(e0, '') as e) h`;
    // Team members work at every location but the last by name, which nobody is assigned to (its overdue
    // notices go to the admins and owners).
    await tx`insert into public.location_assignments (auction_id, location_id, user_id)
      select l.auction_id, l.id, m.user_id
      from public.locations l
      join public.auction_members m on m.auction_id = l.auction_id and m.role = 'team_member'
      where l.auction_id = ${auctionId}
        and l.id <> (select id from public.locations where auction_id = ${auctionId} order by name desc limit 1)`;
    await tx`insert into public.submission_types (auction_id, name, description)
      select ${auctionId}, n, d from unnest(${SUBMISSION_TYPES.map((t) => t.name)}::text[],
        ${SUBMISSION_TYPES.map((t) => t.description)}::text[]) as x(n, d)`;
    // Each location uses four of the five types, in its own order; the first is required.
    await tx`insert into public.location_submission_types (location_id, submission_type_id, auction_id,
      display_order, is_required)
      select l.id, t.id, ${auctionId}, o.ord, o.ord = 1
      from (select id, row_number() over (order by name) as li from public.locations
        where auction_id = ${auctionId}) l
      cross join (select id, row_number() over (order by created_at, name) as ti from public.submission_types
        where auction_id = ${auctionId}) t
      cross join lateral (select ((t.ti + l.li) % 5) + 1 as ord) o
      where o.ord <= 4`;
  }
}
