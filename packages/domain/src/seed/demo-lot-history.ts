// The demo lot history, in bulk: lot submissions spread through each location's operating hours over the last
// `days` days, their entries per submission type, quality inspections and their defects. Each is one statement
// over generate_series, so a large `scale` stays fast.
import type postgres from 'postgres';
import { SUBMISSION_TYPES } from './demo-data.js';

/** What the history is generated for: the auctions, their people's ids by key, and the span and volume. */
export interface LotHistory {
  tx: postgres.TransactionSql;
  auctionIds: string[];
  ids: Record<string, string>;
  now: Date;
  days: number;
  scale: number;
}

/**
 * Slots spread over each location's operating window (spanning midnight where the window does), about one
 * per `frequency` minutes, times the scale, in the auction's time zone; one slot in ten is skipped so some
 * locations are overdue, as in real life.
 */
function slots({ tx, auctionIds, now, days }: LotHistory, perWindow: postgres.PendingQuery<postgres.Row[]>) {
  return tx`
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
}

export async function insertSubmissions(h: LotHistory): Promise<void> {
  const { tx, auctionIds, ids, scale } = h;
  await tx`
    with s as (${slots(h, tx`w.minutes / l.submission_frequency_minutes * ${scale}::int`)})
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
}

export async function insertEntries({ tx, auctionIds }: LotHistory): Promise<void> {
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
}

export async function insertInspections(h: LotHistory): Promise<void> {
  const { tx, auctionIds, ids, scale } = h;
  await tx`
    with s as (${slots(h, tx`4 * ${scale}::int`)})
    insert into public.quality_inspections (auction_id, location_id, user_id, vin_number, barcode, submitted_at,
      created_at, updated_at)
    select s.auction_id, s.location_id,
      case when s.auction_id = ${auctionIds[0]!} and random() < 0.8 then ${ids.inspector!}::uuid
        else ${ids.lot1!}::uuid end,
      upper(substr(md5(random()::text), 1, 17)), 'LOT-' || lpad(floor(random() * 1000000)::int::text, 6, '0'),
      s.ts, s.ts, s.ts
    from s`;
}

export async function insertDefects({ tx, auctionIds }: LotHistory): Promise<void> {
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
}
