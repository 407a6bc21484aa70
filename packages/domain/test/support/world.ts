// A small known world for policy and event tests: auction A with an owner, an admin and a team member and one
// row in every table, auction B with its own owner (the "other auction" member), and a super admin.
import type postgres from 'postgres';
import { createAuction, createUser, type AuctionFixture } from './fixtures.js';

export interface World {
  a: AuctionFixture;
  b: AuctionFixture;
  superAdmin: string;
  ids: {
    location: string;
    otherLocation: string;
    /** A location of auction A assigned to nobody. */
    unassignedLocation: string;
    type: string;
    otherType: string;
    submission: string;
    entry: string;
    inspection: string;
    defect: string;
    category: string;
    problem: string;
    facts: string;
    cause: string;
    action: string;
    channel: string;
    otherChannel: string;
    message: string;
    reaction: string;
    dataset: string;
    report: string;
  };
}

export async function buildWorld(sql: postgres.Sql): Promise<World> {
  const a = await createAuction(sql, 'world-a', 'America/New_York');
  const b = await createAuction(sql, 'world-b');
  const superAdmin = await createUser(sql, 'root@x.test', 'Root');
  await sql`insert into public.super_admins (user_id) values (${superAdmin})`;
  const one = async (q: Promise<postgres.RowList<postgres.Row[]>>) => (await q)[0].id as string;
  const location =
    await one(sql`insert into public.locations (auction_id, name, operating_hours_start, operating_hours_end)
    values (${a.auctionId}, 'North lot', '06:00', '18:00') returning id`);
  // The team member works at North lot; South lot is assigned to nobody.
  await sql`insert into public.location_assignments (location_id, user_id) values (${location}, ${a.member})`;
  const unassignedLocation = await one(
    sql`insert into public.locations (auction_id, name) values (${a.auctionId}, 'South lot') returning id`,
  );
  const otherLocation = await one(
    sql`insert into public.locations (auction_id, name) values (${b.auctionId}, 'B lot') returning id`,
  );
  const type = await one(
    sql`insert into public.submission_types (auction_id, name) values (${a.auctionId}, 'Sold') returning id`,
  );
  const otherType = await one(
    sql`insert into public.submission_types (auction_id, name) values (${b.auctionId}, 'Sold') returning id`,
  );
  await sql`insert into public.location_submission_types (location_id, submission_type_id, auction_id, display_order)
    values (${location}, ${type}, ${a.auctionId}, 1)`;
  const submission = await one(
    sql`insert into public.lot_submissions (auction_id, location_id, user_id)
      values (${a.auctionId}, ${location}, ${a.member}) returning id`,
  );
  const entry = await one(
    sql`insert into public.lot_submission_entries (auction_id, submission_id, submission_type_id, car_count)
      values (${a.auctionId}, ${submission}, ${type}, 5) returning id`,
  );
  const inspection =
    await one(sql`insert into public.quality_inspections (auction_id, location_id, user_id, vin_number, barcode)
    values (${a.auctionId}, ${location}, ${a.member}, '1HGCM82633A004352', 'BC1') returning id`);
  const category = await one(sql`select id from public.defect_categories where name = 'Dent' and auction_id is null`);
  const defect = await one(
    sql`insert into public.quality_defects (auction_id, inspection_id, category_id, notes)
      values (${a.auctionId}, ${inspection}, ${category}, 'door') returning id`,
  );
  const problem =
    await one(sql`insert into public.problem_reports (auction_id, issue_name, area, location_id, prepared_by)
    values (${a.auctionId}, 'Flat tires', 'Yard', ${location}, ${a.member}) returning id`);
  const facts = await one(
    sql`insert into public.problem_facts (auction_id, problem_id, who) values (${a.auctionId}, ${problem}, 'crew')
      returning id`,
  );
  const cause = await one(
    sql`insert into public.potential_causes (auction_id, problem_id, cause_text, created_by)
      values (${a.auctionId}, ${problem}, 'nails', ${a.member}) returning id`,
  );
  const action = await one(
    sql`insert into public.problem_actions (auction_id, problem_id, issue, created_by)
      values (${a.auctionId}, ${problem}, 'sweep', ${a.member}) returning id`,
  );
  const channel = await one(
    sql`insert into public.channels (auction_id, name, created_by) values (${a.auctionId}, 'general', ${a.owner})
      returning id`,
  );
  const otherChannel = await one(
    sql`insert into public.channels (auction_id, name, created_by) values (${b.auctionId}, 'general', ${b.owner})
      returning id`,
  );
  const message = await one(
    sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${a.auctionId}, ${channel}, ${a.member}, 'hello') returning id`,
  );
  const reaction = await one(
    sql`insert into public.message_reactions (auction_id, message_id, user_id, emoji)
      values (${a.auctionId}, ${message}, ${a.member}, '👍') returning id`,
  );
  const dataset = await one(
    sql`insert into public.datasets (auction_id, name, created_by) values (${a.auctionId}, 'Sales', ${a.admin})
      returning id`,
  );
  const report = await one(
    sql`insert into public.saved_reports (auction_id, dataset_id, name, sql, created_by)
      values (${a.auctionId}, ${dataset}, 'Top', 'select 1', ${a.admin}) returning id`,
  );
  return {
    a,
    b,
    superAdmin,
    ids: {
      location,
      otherLocation,
      unassignedLocation,
      type,
      otherType,
      submission,
      entry,
      inspection,
      defect,
      category,
      problem,
      facts,
      cause,
      action,
      channel,
      otherChannel,
      message,
      reaction,
      dataset,
      report,
    },
  };
}
