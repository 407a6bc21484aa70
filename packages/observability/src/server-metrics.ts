// One process's metric registry: request counts and latencies by family, method and status, the process and
// event-loop metrics of prom-client, and gauges read at scrape time from the parts that own the numbers.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { familyOf, labelSetIndex, methodLabel } from './request-labels.js';

/** Seconds; from a cached plan's sub-millisecond read to a slow import or upload. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ServerMetrics {
  readonly registry: Registry;
  /** One finished request; `seconds` from the first byte of the request to the answer. */
  observeRequest(method: string, path: string, status: number, seconds: number): void;
  /** A GET or HEAD looked up in the REST engine's plan cache. */
  planCacheLookup(hit: boolean): void;
}

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Requests and plan-cache lookups are counted here and handed to prom-client when scraped: its counters hash their
  // label object on every increment, children included.
  const counts = new Map<number, RequestSeries>();
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by path family, method and status',
    labelNames: ['family', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const series of counts.values()) this.inc(series.labels, series.count);
    },
  });
  registry.registerMetric(new DurationHistogram(counts) as never);
  const lookups = { hit: 0, miss: 0 };
  new Counter({
    name: 'rest_plan_cache_lookups_total',
    help: 'REST reads looked up in the plan cache, by result (hit skips parse, plan and compile)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (lookups.hit > 0) this.inc({ result: 'hit' }, lookups.hit);
      if (lookups.miss > 0) this.inc({ result: 'miss' }, lookups.miss);
    },
  });
  return {
    registry,
    planCacheLookup: (hit) => {
      if (hit) lookups.hit++;
      else lookups.miss++;
    },
    observeRequest(method, path, status, seconds) {
      const family = familyOf(path);
      // Bounded: six families, eight method labels (a made-up method is OTHER), three-digit statuses.
      const index = labelSetIndex(family, method, status);
      let series = counts.get(index);
      if (series === undefined) {
        const labels = { family, method: methodLabel(method), status: String(status) };
        series = { labels, count: 0, sum: 0, buckets: new Array<number>(DURATION_BUCKETS.length).fill(0) };
        counts.set(index, series);
      }
      series.count++;
      series.sum += seconds;
      const bucket = DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
      if (bucket !== -1) series.buckets[bucket]!++;
    },
  };
}

interface RequestSeries {
  readonly labels: { family: string; method: string; status: string };
  count: number;
  /** Seconds, and the observations per bucket of DURATION_BUCKETS (not cumulative; past the last one: count only). */
  sum: number;
  readonly buckets: number[];
}

type Sample = {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
};

/**
 * http_request_duration_seconds as prom-client's registry reads a histogram (its `get()` shape, the same samples and
 * labels as prom-client's Histogram writes), from the counts observeRequest keeps: prom-client's histogram hashes
 * its label object on every observation, a few µs of every request.
 */
class DurationHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'Time from request to answer, by path family, method and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  constructor(private readonly series: Map<number, RequestSeries>) {}

  /** For the text exposition: each series' labels as shared labels, after `le`. */
  getForPromString() {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, count, sum, buckets } of this.series.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** For JSON and the cluster's aggregation: the labels in one object. */
  get() {
    const metric = this.getForPromString();
    return {
      ...metric,
      values: metric.values.map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }

  reset() {
    for (const s of this.series.values()) {
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
  }
}

/**
 * Empties a metric. prom-client's reset() puts a 0 sample back into a metric without labels; a value that is
 * unknown (archiving never succeeded, the read failed) must be absent instead, so that absent() alerts fire and a
 * counter does not seem to restart from 0.
 */
function clear(metric: Gauge<string> | Counter<string>, labelled: boolean): void {
  metric.reset();
  if (!labelled) metric.remove({});
}

/**
 * A gauge whose samples are read when scraped: `read` returns the value, per-label values, or undefined when the
 * value is unknown (then the gauge has no sample in this scrape).
 */
export function gaugeOnScrape<L extends string>(
  registry: Registry,
  spec: { name: string; help: string; labelNames?: readonly L[] },
  read: () =>
    | number
    | undefined
    | Array<[Partial<Record<L, string>>, number]>
    | Promise<number | undefined | Array<[Partial<Record<L, string>>, number]>>,
): void {
  const labelled = (spec.labelNames ?? []).length > 0;
  new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [registry],
    async collect() {
      const value = await read();
      clear(this, labelled);
      if (typeof value === 'number') this.set(value);
      else for (const [labels, n] of value ?? []) this.set(labels, n);
    },
  });
}

/**
 * A count kept elsewhere (the process fault counters, PostgreSQL's statistics), exported when scraped as a counter;
 * `undefined` leaves it out of the scrape. Prometheus naming: the name ends in `_total`.
 */
export function counterOnScrape(
  registry: Registry,
  spec: { name: `${string}_total`; help: string },
  read: () => number | undefined | Promise<number | undefined>,
): void {
  new Counter({
    name: spec.name,
    help: spec.help,
    registers: [registry],
    async collect() {
      const value = await read();
      clear(this, false);
      if (value !== undefined) this.inc(value);
    },
  });
}

/**
 * The time this process started. In a cluster the primary reports its own (the server's start): prom-client's
 * default one is left out of aggregation ('omit'), as the workers' start times cannot be summed.
 */
export function registerStartTime(registry: Registry, startedAt = Date.now() / 1000 - process.uptime()): void {
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    registers: [registry],
    aggregator: 'first',
  }).set(Math.round(startedAt));
}
