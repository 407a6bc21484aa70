import { describe, expect, it } from 'vitest';
import { contractShaped } from './http-client.js';
import { makePlan, playing } from './plan.js';
import { recoveredAt, rssGrowth } from './stats.js';

describe('the day plan', () => {
  it('holds the reference hour at K = 1', () => {
    const plan = makePlan(1, 20);
    const count = (kind: string) => plan.jobs.filter((j) => j.kind === kind).length;
    expect([plan.auctions, plan.staff, plan.admins, plan.submissionSubscribers]).toEqual([20, 500, 40, 50]);
    expect(count('submission')).toBe(400); // 20 auctions x 10 locations x 2 an hour
    expect(count('inspection')).toBe(2000);
    expect(count('message')).toBe(2000); // 500 staff x 4
    expect(count('refresh')).toBe(2400); // 40 admins x 60 refreshes
    expect(count('report')).toBe(3); // 40 a day over 12 hours
    expect(count('import')).toBe(1);
    expect(plan.durationMs).toBe(180_000);
    expect(
      plan.jobs.every((j, i) => j.at >= 0 && j.at < plan.durationMs && (i === 0 || plan.jobs[i - 1]!.at <= j.at)),
    ).toBe(true);
  });

  it('plays a slice of the hour at the same rates with --minutes', () => {
    const hour = makePlan(20, 1);
    const slice = makePlan(20, 1, 15);
    expect([slice.durationMs, slice.hourMs, hour.durationMs]).toEqual([900_000, 3_600_000, 3_600_000]);
    expect([slice.auctions, slice.staff, slice.admins, slice.submissionSubscribers]).toEqual([400, 10_000, 800, 1000]);
    // The jobs of the hour's first quarter, the same schedule as the whole hour's.
    expect(slice.jobs).toEqual(hour.jobs.filter((j) => j.at < 900_000));
    const messages = slice.jobs.filter((j) => j.kind === 'message').length;
    expect(messages).toBe(10_000); // 10,000 staff x 4 an hour, a quarter of it
    expect(makePlan(1, 20, 60).durationMs).toBe(180_000); // a slice longer than the hour is the hour
    expect([playing(slice), playing(hour)]).toEqual(["the first 900 s of the hour's 3600 s", 'the hour in 3600 s']);
  });

  it('scales every count with K, keeping at least one of each', () => {
    const twice = makePlan(2, 20);
    expect(twice.jobs.filter((j) => j.kind === 'message').length).toBe(4000);
    const small = makePlan(0.05, 40);
    expect([small.auctions, small.staff, small.admins]).toEqual([1, 25, 2]);
    expect(small.jobs.filter((j) => j.kind === 'import').length).toBe(1);
  });
});

describe('the figures', () => {
  it('finds when service levels hold again after a fault', () => {
    const at = (t: number, status = 200, ms = 10) => ({ t, kind: 'read.x', ms, status });
    const records = [
      at(0, 503),
      at(1_000, 503),
      at(2_000),
      at(3_000, 200, 500),
      ...[4, 5, 6, 7, 8, 9, 10].map((s) => at(s * 1_000)),
    ];
    expect(recoveredAt(records, 0, 20_000)).toBe(4_000);
    expect(recoveredAt(records, 0, 20_000, 5_000, false)).toBe(2_000);
    expect(recoveredAt([at(0, 503)], 0, 20_000)).toBeUndefined();
  });

  it('calls RSS flat when the last third stays within the first third', () => {
    const samples = (values: number[]) => values.map((v, t) => ({ t, rss: { w: v }, cpu: {}, sockets: 0 }));
    expect(rssGrowth(samples([100, 110, 100, 105, 108, 112]), 'w')).toBeCloseTo(0.018, 2);
    expect(rssGrowth(samples([100, 100, 120, 130, 150, 160]), 'w')).toBeCloseTo(0.6, 5);
  });

  it('knows the contract error shapes by path family', () => {
    expect(contractShaped('/rest/v1/x', '{"code":"PGRST000","details":null,"hint":null,"message":"m"}')).toBe(true);
    expect(contractShaped('/storage/v1/object/b/p', '{"statusCode":"503","error":"DatabaseError","message":"m"}')).toBe(
      true,
    );
    expect(contractShaped('/storage/v1/object/b/p', 'Internal Server Error')).toBe(false);
    expect(contractShaped('/functions/v1/import-csv', '{"error":"m","code":"INTERNAL_ERROR"}')).toBe(true);
  });
});
