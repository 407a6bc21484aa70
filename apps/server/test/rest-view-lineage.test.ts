// Relationships through views follow where each view column really comes from (the view's query tree), not column
// names: active_problem_reports shows problem_reports.id as `id` while reading users.id for its names, so channels'
// created_by (a users FK) must not embed through it; a view that renames an FK column still embeds by it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer } from './support/test-server.js';

let t: TestServer;
let owner: { id: string; client: SupabaseClient };
let reportId: string;

beforeAll(async () => {
  t = await startTestServer(
    {},
    {
      // A view renaming the FK column prepared_by, and a view over it renaming again to names the query tree
      // escapes; created before the server reads the schema.
      beforeStart: async ({ db }) => {
        await db.sql.unsafe(`create view public.report_preparers with (security_invoker = true) as
          select r.id as report, r.prepared_by as preparer, u.email as preparer_email_copy
          from public.problem_reports r left join public.users u on u.id = r.prepared_by;
          create view public.report_preparers_again with (security_invoker = true) as
          select p.report as "the report", p.preparer as "prepared :by {x}" from public.report_preparers p;
          grant select on public.report_preparers, public.report_preparers_again to authenticated`);
      },
    },
  );
  owner = await t.signUp('owner@lineage.test', 'Olive Owner');
  const auction = await owner.client
    .from('auctions')
    .insert({ name: 'Lineage Auction', slug: 'lineage-auction' })
    .select()
    .single();
  expect(auction.error).toBeNull();
  const report = await owner.client
    .from('problem_reports')
    .insert({ auction_id: auction.data!.id, issue_name: 'Dented door' })
    .select()
    .single();
  expect(report.error).toBeNull();
  reportId = report.data!.id;
});
afterAll(async () => {
  await t?.stop();
});

describe('relationships through views', () => {
  it("refuses an embed whose only link is a same-named column from another table (PostgREST's PGRST200)", async () => {
    const { data, error, status } = await owner.client.from('active_problem_reports').select('id, channels(id)');
    expect(data).toBeNull();
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'PGRST200' });
    expect(error!.message).toContain("'active_problem_reports' and 'channels'");
    const back = await owner.client.from('channels').select('id, active_problem_reports(id)');
    expect(back).toMatchObject({ status: 400, error: { code: 'PGRST200' } });
  });

  it('embeds through the view column that really shows the foreign key', async () => {
    const { data, error } = await owner.client
      .from('active_problem_reports')
      .select('id, auctions(name)')
      .eq('id', reportId);
    expect(error).toBeNull();
    expect(data).toEqual([{ id: reportId, auctions: { name: 'Lineage Auction' } }]);
  });

  it('embeds by a renamed FK column of a view, and not by the column it joined on', async () => {
    const { data, error } = await owner.client
      .from('report_preparers')
      .select('report, users(email)')
      .eq('report', reportId);
    expect(error).toBeNull();
    expect(data).toEqual([{ report: reportId, users: { email: 'owner@lineage.test' } }]);
    // The view reads users.id only to join: auctions' created_by and similar users FKs do not reach it by `report`.
    const wrong = await owner.client.from('report_preparers').select('report, channels(id)');
    expect(wrong).toMatchObject({ status: 400, error: { code: 'PGRST200' } });
  });

  it('follows a view over a view, through names with spaces, colons and braces', async () => {
    const { data, error } = await owner.client.from('report_preparers_again').select('"the report", users(email)');
    expect(error).toBeNull();
    expect(data).toEqual([{ 'the report': reportId, users: { email: 'owner@lineage.test' } }]);
  });
});
