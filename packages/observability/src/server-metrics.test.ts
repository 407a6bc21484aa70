import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { familyOf, methodLabel } from './request-labels.js';
import { createServerMetrics } from './server-metrics.js';

const requests: Array<[string, string, number, number]> = [
  ['GET', '/rest/v1/items', 200, 0.0004],
  ['GET', '/rest/v1/items', 200, 0.001],
  ['GET', '/rest/v1/items', 200, 0.03],
  ['POST', '/rest/v1/items', 201, 0.2],
  ['GET', '/auth/v1/user', 401, 12],
  ['BREW', '/storage/v1/object/x', 405, 0.0025],
];

/** prom-client's own histogram, fed the same requests: what the scrape must look like. */
function reference(): Registry {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to answer, by path family, method and status',
    labelNames: ['family', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  for (const [method, path, status, seconds] of requests)
    histogram.observe({ family: familyOf(path), method: methodLabel(method), status: String(status) }, seconds);
  return registry;
}

function ours(): Registry {
  const metrics = createServerMetrics();
  for (const [method, path, status, seconds] of requests) metrics.observeRequest(method, path, status, seconds);
  return metrics.registry;
}

describe('http_request_duration_seconds', () => {
  it('is scraped as prom-client’s histogram writes the same observations', async () => {
    expect(await ours().getSingleMetricAsString('http_request_duration_seconds')).toBe(
      await reference().getSingleMetricAsString('http_request_duration_seconds'),
    );
  });

  it('sums across workers as prom-client’s histogram does', async () => {
    const json = async (r: Registry) => [await r.getSingleMetric('http_request_duration_seconds')!.get()];
    const aggregate = async (r: () => Registry) =>
      AggregatorRegistry.aggregate([await json(r()), await json(r())]).getSingleMetricAsString(
        'http_request_duration_seconds',
      );
    const summed = await aggregate(ours);
    expect(summed).toBe(await aggregate(reference));
    expect(summed).toContain('http_request_duration_seconds_count{family="rest",method="GET",status="200"} 6');
  });
});
