import { describe, expect, it } from 'vitest';
import { clockBetween, clockLines, parseClock } from './server-clock.js';

const series = (metric: string, labels: string, buckets: Array<[string, number]>, sum: number) => [
  ...buckets.map(([le, n]) => `${metric}_bucket{le="${le}",${labels}} ${n}`),
  `${metric}_sum{${labels}} ${sum}`,
  `${metric}_count{${labels}} ${buckets.at(-1)![1]}`,
];

const scrape = (
  getOk: number[],
  getNotFound: number[],
  post: number[],
  gc: { minor: number[]; major: number[] },
  plans: [number, number],
) =>
  [
    '# HELP http_request_duration_seconds Request duration',
    '# TYPE http_request_duration_seconds histogram',
    ...[
      ['rest', 'GET', '200', getOk],
      ['rest', 'GET', '404', getNotFound],
      ['rest', 'POST', '201', post],
    ].flatMap(([family, method, status, [fast, slow, all]]) =>
      series(
        'http_request_duration_seconds',
        `family="${family}",method="${method}",status="${status}"`,
        [
          ['0.1', fast as number],
          ['0.25', slow as number],
          ['+Inf', all as number],
        ],
        0.01 * (all as number),
      ),
    ),
    '# TYPE nodejs_gc_duration_seconds histogram',
    ...Object.entries(gc).flatMap(([kind, [fast, slower, all, sum]]) =>
      series(
        'nodejs_gc_duration_seconds',
        `kind="${kind}"`,
        [
          ['0.001', 0],
          ['0.01', fast!],
          ['0.1', slower!],
          ['+Inf', all!],
        ],
        sum!,
      ),
    ),
    `rest_plan_cache_lookups_total{result="hit"} ${plans[0]}`,
    `rest_plan_cache_lookups_total{result="miss"} ${plans[1]}`,
    'process_cpu_seconds_total 12.5',
    // A line the parser refuses is skipped, not read into the next.
    'http_request_duration_seconds_bucket{le="0.1",family="rest" 99',
  ].join('\n');

describe("the server's own clock", () => {
  it('sums the statuses of a family and method, and keeps the cumulative counts per bound', () => {
    const clock = parseClock(
      scrape([90, 98, 100], [5, 5, 5], [10, 20, 20], { minor: [8, 10, 10, 0.05], major: [0, 1, 2, 0.15] }, [7, 3]),
    );
    expect(clock.requests).toEqual({
      'rest GET': { count: 105, sum: 1.05, within: { '0.1': 95, '0.25': 103 } },
      'rest POST': { count: 20, sum: 0.2, within: { '0.1': 10, '0.25': 20 } },
    });
    expect(clock.gc.major).toEqual({ count: 2, sum: 0.15, within: { '0.001': 0, '0.01': 0, '0.1': 1 } });
    expect(clock.planCache).toEqual({ hit: 7, miss: 3 });
  });

  it('takes the hour as the difference of two readings, without series that saw nothing', () => {
    const gc = { minor: [8, 10, 10, 0.05], major: [0, 1, 2, 0.15] };
    const before = parseClock(scrape([90, 98, 100], [5, 5, 5], [10, 20, 20], gc, [7, 3]));
    const after = parseClock(
      scrape(
        [1080, 1098, 1100],
        [5, 5, 5],
        [10, 20, 20],
        { minor: [108, 110, 110, 0.85], major: [0, 2, 4, 0.35] },
        [907, 103],
      ),
    );
    const hour = clockBetween(before, after);
    expect(Object.keys(hour.requests)).toEqual(['rest GET']);
    expect(hour.requests['rest GET']!.count).toBe(1000);
    expect(hour.requests['rest GET']!.within).toEqual({ '0.1': 990, '0.25': 1000 });
    expect(hour.planCache).toEqual({ hit: 900, miss: 100 });
    const lines = clockLines(hour);
    expect(lines[0]).toMatch(/rest GET +1000 +within 100 ms +99\.0 %, 250 ms +100\.0 %/);
    // 100 minor pauses of 8 ms each; two major ones, both over 10 ms and one of them over 100 ms.
    expect(lines).toContainEqual(
      expect.stringMatching(/gc minor +100 +800 ms in all, 8\.0 ms each, 0 over 10 ms, 0 over 100 ms/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/gc major +2 +200 ms in all, 100\.0 ms each, 2 over 10 ms, 1 over 100 ms/),
    );
    expect(lines.at(-1)).toMatch(/REST plan cache +1000 +reads, 90\.0 % hits/);
  });
});
