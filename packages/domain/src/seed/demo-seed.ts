// Demo data generator: two auctions with people of every role, locations with operating hours in two time zones,
// submission types, `days` days of lot submissions with entries, inspections with defects, rock reports in every
// state, channels with threads and reactions. Bulk rows come from generate_series in a handful of statements so
// the seed is fast enough to serve benchmarks; `scale` multiplies the submission, inspection and message volume.
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { AUCTIONS, CHANNELS, EMOJIS, MESSAGES, PEOPLE, REPLIES, ROCK_REPORTS, SUBMISSION_TYPES } from './demo-data.js';

export interface SeedOptions {
  /** Volume multiplier, 1-1000 (1 = about 3,100 submissions over 60 days). */
  scale?: number;
  /** History length in days (default 60). */
  days?: number;
  now?: Date;
  /** Password hashing as the auth service does it (argon2id), injected to keep this package free of auth code. */
  hashPassword: (password: string) => Promise<string>;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface SeededUser {
  email: string;
  password: string;
  fullName: string;
  roles: Record<string, string>;
}
export interface SeedResult {
  auctions: { id: string; name: string; slug: string; timezone: string }[];
  users: SeededUser[];
  counts: Record<string, number>;
  /** false when the database refused session_replication_role and triggers (and events) ran for every row. */
  bulkMode: boolean;
}

const STEPS = [
  'people',
  'auctions',
  'locations',
  'submissions',
  'entries',
  'inspections',
  'defects',
  'rock reports',
  'chat',
  'rollups',
  'statistics',
  'analyze',
];

/** The first free slug suffix: '' for a fresh database, '-2', '-3', ... when demo data already exists. */
async function freeSuffix(sql: postgres.Sql): Promise<string> {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    const taken = await sql`select 1 from public.auctions where slug = any(${AUCTIONS.map((a) => a.slug + suffix)})`;
    if (taken.length === 0) return suffix;
  }
}

export async function seedDemo(sql: postgres.Sql, options: SeedOptions): Promise<SeedResult> {
  const scale = Math.max(1, Math.floor(options.scale ?? 1));
  const days = options.days ?? 60;
  const now = options.now ?? new Date();
  let step = 0;
  const progress = (label: string) => options.onProgress?.(step++, STEPS.length, label);

  progress('people');
  const suffix = await freeSuffix(sql);
  const people = await Promise.all(
    PEOPLE.map(async (p) => {
      const password = `demo-${randomBytes(9).toString('base64url')}`;
      return {
        ...p,
        email: `${p.key}@${AUCTIONS[0]!.slug}${suffix}.example.com`,
        password,
        hash: await options.hashPassword(password),
      };
    }),
  );

  const result = (await sql.begin(async (tx) => {
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
    // Bulk mode skips row triggers (fills, checks, events): every row below is generated consistent, and the
    // history should not flood the webhook outbox. Needs superuser; without it the seed is slower but the same.
    let bulkMode = true;
    try {
      await tx.savepoint((sp) => sp`set local session_replication_role = replica`);
    } catch {
      bulkMode = false;
    }

    progress('auctions');
    const auctions: SeedResult['auctions'] = [];
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

    progress('locations');
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

    const auctionIds = auctions.map((a) => a.id);
    // Slots spread over each location's operating window (spanning midnight where the window does), about one
    // per `frequency` minutes, times the scale, in the auction's time zone; one slot in ten is skipped so some
    // locations are overdue, as in real life.
    const slots = (perWindow: postgres.PendingQuery<postgres.Row[]>) => tx`
      select l.id as location_id, l.auction_id, t.ts, d, k
      from public.locations l
      join public.auctions a on a.id = l.auction_id
      cross join lateral (select case
          when l.operating_hours_start is null or l.operating_hours_end is null
            or l.operating_hours_start = l.operating_hours_end then 1440
          when l.operating_hours_start < l.operating_hours_end then extract(epoch
            from l.operating_hours_end - l.operating_hours_start) / 60
          else 1440 - extract(epoch from l.operating_hours_start - l.operating_hours_end) / 60 end as minutes) w
      cross join lateral (select greatest(1, (${perWindow})::int) as n) c
      cross join generate_series(0, ${days - 1}) d
      cross join lateral generate_series(1, c.n) k
      cross join lateral (
        select ((((${now}::timestamptz at time zone (a.settings ->> 'timezone'))::date - d) +
          coalesce(l.operating_hours_start, time '00:00'))
          + make_interval(secs => w.minutes * 60 * (k - 0.5 + (random() - 0.5) * 0.6) / c.n)) at time zone
            (a.settings ->> 'timezone') as ts
      ) t
      where l.auction_id = any(${auctionIds}::uuid[]) and t.ts <= ${now} and random() > 0.1`;

    progress('submissions');
    await tx`
      with s as (${slots(tx`w.minutes / l.submission_frequency_minutes * ${scale}::int`)})
      insert into public.lot_submissions (auction_id, location_id, user_id, submitted_at, image_url, created_at,
        updated_at)
      select s.auction_id, s.location_id,
        (case when s.auction_id = ${auctionIds[0]!} then ${[ids.lot1!, ids.lot2!, ids.lot3!, ids.admin!]}::uuid[]
          else ${[ids.lot1!, ids.admin!]}::uuid[] end)[1 + (abs(hashtext(s.location_id::text || s.d || '/' || s.k)) %
          (case when s.auction_id = ${auctionIds[0]!} then 4 else 2 end))],
        s.ts,
        case when random() < 0.35 then 'https://picsum.photos/seed/' || substr(md5(random()::text), 1,
          12) || '/1024/768' end,
        s.ts, s.ts
      from s`;

    progress('entries');
    await tx`
      insert into public.lot_submission_entries (auction_id, location_id, submission_id, submission_type_id, car_count,
        image_url, created_at)
      select s.auction_id, s.location_id, s.id, st.id, floor(random() * (mx.max + 1))::int,
        case when random() < 0.1 then 'https://picsum.photos/seed/' || substr(md5(random()::text), 1, 12) || '/800/600'
          end, s.submitted_at
      from public.lot_submissions s
      join public.location_submission_types lst on lst.location_id = s.location_id
      join public.submission_types st on st.id = lst.submission_type_id
      join unnest(${SUBMISSION_TYPES.map((t) => t.name)}::text[], ${SUBMISSION_TYPES.map((t) => t.max)}::int[]) as
        mx(name, max) on mx.name = st.name
      where s.auction_id = any(${auctionIds}::uuid[])`;

    progress('inspections');
    await tx`
      with s as (${slots(tx`4 * ${scale}::int`)})
      insert into public.quality_inspections (auction_id, location_id, user_id, vin_number, barcode, submitted_at,
        created_at, updated_at)
      select s.auction_id, s.location_id,
        case when s.auction_id = ${auctionIds[0]!} and random() < 0.8 then ${ids.inspector!}::uuid
          else ${ids.lot1!}::uuid end,
        upper(substr(md5(random()::text), 1, 17)), 'LOT-' || lpad(floor(random() * 1000000)::int::text, 6, '0'),
        s.ts, s.ts, s.ts
      from s`;

    progress('defects');
    await tx`
      insert into public.quality_defects (auction_id, location_id, inspection_id, category_id, notes, created_at)
      select i.auction_id, i.location_id, i.id, c.id,
        (array['Driver door', 'Rear bumper', 'Hood', 'Roof', 'Front left wheel', 'Windshield', 'Back seat',
          'Tailgate'])[1 + floor(random() * 8)::int],
        i.submitted_at
      from public.quality_inspections i
      cross join lateral (
        select x.id from (
          select dc.id, row_number() over (order by md5(i.id::text || dc.id::text)) as rn
          from public.defect_categories dc where dc.auction_id is null) x
        where x.rn <= get_byte(uuid_send(i.id), 0) % 4) c
      where i.auction_id = any(${auctionIds}::uuid[])`;

    progress('rock reports');
    for (const [ai, auction] of auctions.entries()) {
      const reports = ai === 0 ? ROCK_REPORTS : ROCK_REPORTS.slice(0, 3);
      const members = membersOf[auction.id]!;
      for (const [ri, r] of reports.entries()) {
        const at = new Date(now.getTime() - (ri * 6 + 2) * 86_400_000);
        const [p] = await tx`
          insert into public.problem_reports (auction_id, issue_name, area, location_id, prepared_by, assigned_to,
            status, submitted_at, closed_at, created_at, updated_at)
          values (${auction.id}, ${r.issue}, ${r.area},
            (select id from public.locations where auction_id = ${auction.id} order by name offset ${ri % 2} limit 1),
            ${members[(ri + 2) % members.length]!}, ${ri % 3 === 2 ? null : members[ri % 2 === 0 ? 1 : 0]!},
            'open', ${at}, ${r.status === 'closed' ? new Date(at.getTime() + 3 * 86_400_000) : null}, ${at}, ${at})
          returning id`;
        // Inserted open, then moved: the status workflow trigger (when it runs) only accepts new reports as open.
        if (r.status !== 'open') await tx`update public.problem_reports set status = ${r.status} where id = ${p!.id}`;
        await tx`insert into public.problem_facts (auction_id, problem_id, who, what, where_field,
          when_field, how_many, how_much, created_by)
          values (${auction.id}, ${p!.id}, 'Lot crew', ${r.issue}, ${r.area}, 'Weekday mornings', ${`${3 + ri} units`},
            ${`$${(ri + 1) * 350}`}, ${members[0]!})`;
        for (const [ci, cause] of r.causes.entries()) {
          await tx`insert into public.potential_causes (auction_id, problem_id, cause_text, order_number, created_by)
            values (${auction.id}, ${p!.id}, ${cause}, ${ci + 1}, ${members[0]!})`;
        }
        for (const [issue, countermeasure, status] of r.actions) {
          await tx`insert into public.problem_actions (auction_id, problem_id, issue, countermeasure,
            responsible_person, completion_date, status, completed_at, created_by)
            values (${auction.id}, ${p!.id}, ${issue}, ${countermeasure}, ${PEOPLE[1 + (ri % 3)]!.fullName},
              ${new Date(at.getTime() + 14 * 86_400_000).toISOString().slice(0, 10)}, ${status},
                ${status === 'complete' ? at : null}, ${members[0]!})`;
        }
      }
    }

    progress('chat');
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

    progress('rollups');
    if (bulkMode) await tx`set local session_replication_role = origin`;
    // Bulk mode skipped the triggers that keep the analytics rollups; one pass per auction builds them.
    if (bulkMode) for (const id of auctionIds) await tx`select analytics.rebuild(${id})`;

    progress('statistics');
    const [counts] = await tx`
      select
        (select count(*) from public.lot_submissions where auction_id = any(${auctionIds}::uuid[]))::int as
          lot_submissions,
        (select count(*) from public.lot_submission_entries where auction_id = any(${auctionIds}::uuid[]))::int as
          lot_submission_entries,
        (select count(*) from public.quality_inspections where auction_id = any(${auctionIds}::uuid[]))::int as
          quality_inspections,
        (select count(*) from public.quality_defects where auction_id = any(${auctionIds}::uuid[]))::int as
          quality_defects,
        (select count(*) from public.problem_reports where auction_id = any(${auctionIds}::uuid[]))::int as
          problem_reports,
        (select count(*) from public.messages where auction_id = any(${auctionIds}::uuid[]))::int as messages,
        (select count(*) from public.message_reactions where auction_id = any(${auctionIds}::uuid[]))::int as
          message_reactions`;
    return {
      auctions,
      users: people.map((p) => ({ email: p.email, password: p.password, fullName: p.fullName, roles: roles[p.key]! })),
      counts: counts as unknown as Record<string, number>,
      bulkMode,
    };
  })) as SeedResult;
  // Fresh statistics: until autovacuum gets to the new rows the planner guesses (one location's week took 142 ms
  // instead of 5 right after a large seed).
  progress('analyze');
  await sql`analyze`;
  options.onProgress?.(STEPS.length, STEPS.length, 'done');
  return result;
}
