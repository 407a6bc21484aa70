// The contract's reads in the shapes clients send them (views with the clients' filters, order and limit;
// count=exact as a count over the same view; the RPCs), as SQL with parameters: shared by the plan test
// (test/read-plans.test.ts) and the data benchmark (scripts/bench-data.ts).
import type postgres from 'postgres';

export interface ReadTargets {
  auctionId: string;
  locationId: string;
  submissionId: string;
  channelId: string;
  now: Date;
}

export interface ContractRead {
  sql: string;
  params: postgres.ParameterOrJSON<never>[];
}

const days = (now: Date, n: number) => new Date(now.getTime() - n * 86_400_000);

export function contractReads(t: ReadTargets): Record<string, ContractRead> {
  return {
    'recent_submissions page of 25': {
      sql: 'select * from public.recent_submissions where auction_id = $1 order by submitted_at desc limit 25',
      params: [t.auctionId],
    },
    'recent_submissions count=exact': {
      sql: 'select count(*) from (select 1 from public.recent_submissions where auction_id = $1) c',
      params: [t.auctionId],
    },
    'recent_submissions of a location, 7 days': {
      sql: `select * from public.recent_submissions where location_id = $1 and submitted_at >= $2 and submitted_at <= $3
        order by submitted_at desc limit 50`,
      params: [t.locationId, days(t.now, 7), t.now],
    },
    get_submission_with_entries: {
      sql: 'select public.get_submission_with_entries($1)',
      params: [t.submissionId],
    },
    'recent_quality_inspections page of 25': {
      sql: 'select * from public.recent_quality_inspections where auction_id = $1 order by submitted_at desc limit 25',
      params: [t.auctionId],
    },
    active_problem_reports: {
      sql: `select * from public.active_problem_reports where auction_id = $1 and status <> 'closed'
        order by submitted_at desc`,
      params: [t.auctionId],
    },
    'messages_with_reply_count of a channel': {
      sql: `select * from public.messages_with_reply_count where channel_id = $1 and parent_message_id is null
        order by created_at desc limit 50`,
      params: [t.channelId],
    },
    'get_location_stats, 30 days': {
      sql: 'select public.get_location_stats($1, $2, $3)',
      params: [t.locationId, days(t.now, 30), t.now],
    },
    'get_all_locations_stats, 30 days': {
      sql: 'select * from public.get_all_locations_stats($1, $2)',
      params: [days(t.now, 30), t.now],
    },
    'get_defect_trends, 90 days': {
      sql: 'select * from public.get_defect_trends($1, $2, null)',
      params: [days(t.now, 90), t.now],
    },
    get_total_unread_count: {
      sql: 'select public.get_total_unread_count($1)',
      params: [t.auctionId],
    },
    get_pending_submissions: {
      sql: 'select * from public.get_pending_submissions($1)',
      params: [t.now],
    },
  };
}

/** The targets of the reads in a seeded demo auction: a location the team member `lot1` is assigned to. */
export async function readTargets(sql: postgres.Sql, auctionId: string, lot1: string, now: Date): Promise<ReadTargets> {
  const [loc] = await sql`select location_id as id from public.location_assignments
    where user_id = ${lot1} and auction_id = ${auctionId} order by location_id limit 1`;
  const [s] = await sql`select id from public.lot_submissions where location_id = ${loc!.id}
    order by submitted_at desc limit 1`;
  const [c] = await sql`select id from public.channels where auction_id = ${auctionId} order by name limit 1`;
  return { auctionId, locationId: loc!.id, submissionId: s!.id, channelId: c!.id, now };
}
