import { describe, expect, it } from 'vitest';
import { clockBetween, clockLines, parseClock } from './server-clock.js';

const histogram = (getOk: number[], getNotFound: number[], post: number[]) =>
  [
    '# HELP http_request_duration_seconds Request duration',
    '# TYPE http_request_duration_seconds histogram',
    ...[
      ['rest', 'GET', '200', getOk],
      ['rest', 'GET', '404', getNotFound],
      ['rest', 'POST', '201', post],
    ].flatMap(([family, method, status, [fast, slow, all]]) => [
      `http_request_duration_seconds_bucket{le="0.1",family="${family}",method="${method}",status="${status}"} ${fast}`,
      `http_request_duration_seconds_bucket{le="0.25",family="${family}",method="${method}",status="${status}"} ${slow}`,
      `http_request_duration_seconds_bucket{le="+Inf",family="${family}",method="${method}",status="${status}"} ${all}`,
      `http_request_duration_seconds_count{family="${family}",method="${method}",status="${status}"} ${all}`,
    ]),
    'process_cpu_seconds_total 12.5',
  ].join('\n');

describe("the server's own clock", () => {
  it('sums the statuses of a family and method, and keeps the cumulative counts per bound', () => {
    const clock = parseClock(histogram([90, 98, 100], [5, 5, 5], [10, 20, 20]));
    expect(clock).toEqual({
      'rest GET': { count: 105, within: { '0.1': 95, '0.25': 103 } },
      'rest POST': { count: 20, within: { '0.1': 10, '0.25': 20 } },
    });
  });

  it('takes the hour as the difference of two readings, without series that saw nothing', () => {
    const before = parseClock(histogram([90, 98, 100], [5, 5, 5], [10, 20, 20]));
    const after = parseClock(histogram([1080, 1098, 1100], [5, 5, 5], [10, 20, 20]));
    expect(clockBetween(before, after)).toEqual({ 'rest GET': { count: 1000, within: { '0.1': 990, '0.25': 1000 } } });
    expect(clockLines(clockBetween(before, after))[0]).toMatch(
      /rest GET +1000 +within 100 ms +99\.0 %, 250 ms +100\.0 %/,
    );
  });
});
