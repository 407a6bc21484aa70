// GET /metrics on one process: the guard (service_role key or METRICS_TOKEN, anything else 401), the names and
// types of the metrics, a scrape that passes the text format's rules, request counts by family, method and status
// that follow the requests made, labels that stay bounded however many ids the paths carry, and queue gauges that
// read the database (absent, not 0, when there is no value).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';
import { sampleOf, seriesOf, typesOf } from './support/prometheus-text.js';
import { lintExposition } from './support/prometheus-lint.js';
import { signUp, subscribed, until } from './realtime.fixture.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ METRICS_TOKEN });
});
afterAll(async () => {
  await t?.stop();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

const rest = (path: string, key = t.serviceRoleKey) => fetch(`${t.url}/rest/v1/${path}`, { headers: { apikey: key } });

describe('the guard', () => {
  it.each([
    ['no credentials', {}],
    ['the anon key', () => ({ authorization: `Bearer ${t.anonKey}` })],
    ['the anon key as apikey', () => ({ apikey: t.anonKey })],
    ['a wrong token', { authorization: 'Bearer not-the-metrics-token-at-all' }],
    ['a token one character off', { authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}x` }],
    ['a user access token', 'user'],
  ])('refuses %s with 401', async (_, given) => {
    let headers: Record<string, string>;
    if (given === 'user')
      headers = { authorization: `Bearer ${(await t.signUp(`m-${randomUUID()}@example.com`)).token}` };
    else headers = typeof given === 'function' ? given() : (given as Record<string, string>);
    const res = await fetch(`${t.url}/metrics`, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await res.text()).not.toContain('http_requests_total');
  });

  it('answers the service_role key as Bearer or apikey, and METRICS_TOKEN', async () => {
    const accepted: Array<Record<string, string>> = [
      { authorization: `Bearer ${t.serviceRoleKey}` },
      { apikey: t.serviceRoleKey },
      { authorization: `Bearer ${METRICS_TOKEN}` },
    ];
    for (const headers of accepted) {
      const res = await fetch(`${t.url}/metrics`, { headers });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE http_requests_total counter');
    }
  });
});

it('names each metric with its Prometheus type', async () => {
  await rest('auctions');
  const types = typesOf(await scrape());
  expect(types).toMatchObject({
    http_requests_total: 'counter',
    http_request_duration_seconds: 'histogram',
    process_cpu_seconds_total: 'counter',
    process_resident_memory_bytes: 'gauge',
    nodejs_eventloop_lag_seconds: 'gauge',
    nodejs_eventloop_lag_p99_seconds: 'gauge',
    db_pool_connections: 'gauge',
    rest_plan_cache_lookups_total: 'counter',
    webhook_deliveries_pending: 'gauge',
    webhook_deliveries_oldest_pending_age_seconds: 'gauge',
    push_jobs_pending: 'gauge',
    mail_outbox_messages: 'gauge',
    imports_running: 'gauge',
    realtime_connections: 'gauge',
    realtime_change_capture_lag_bytes: 'gauge',
    realtime_channels: 'gauge',
    realtime_frames_sent_total: 'counter',
    realtime_frames_received_total: 'counter',
    db_replicas_in_rotation: 'gauge',
    process_escaped_errors_total: 'counter',
    http_body_idle_timeouts_total: 'counter',
    http_client_aborts_total: 'counter',
    cluster_worker_restarts_total: 'counter',
    backup_archive_failures_total: 'counter',
    backup_archive_last_success_age_seconds: 'gauge',
    process_start_time_seconds: 'gauge',
  });
});

it('follows the text format and the naming rules (every count a counter named _total)', async () => {
  await rest('auctions');
  await rest('no_such_table');
  // prom-client's own default gauges of the current handle counts carry a _total name; every Node.js dashboard
  // knows them by it, so they stay (ours may not do the same).
  const promClients = /^nodejs_active_(resources|handles|requests)_total: only counters end in _total$/;
  const problems = lintExposition(await scrape()).filter((p) => !promClients.test(p));
  expect(problems).toEqual([]);
});

it('leaves the WAL archive age out, rather than 0, while no segment was ever archived', async () => {
  // The test cluster does not archive: the precondition, checked so that a change there shows here.
  const [archiver] = await t.db.sql`select last_archived_time, failed_count from pg_stat_archiver`;
  expect(archiver!.last_archived_time).toBeNull();
  const text = await scrape();
  expect(typesOf(text).backup_archive_last_success_age_seconds).toBe('gauge');
  expect(seriesOf(text, 'backup_archive_last_success_age_seconds')).toEqual([]);
  expect(sampleOf(text, 'backup_archive_failures_total', {})).toBe(Number(archiver!.failed_count));
  expect(seriesOf(text, 'backup_base_last_success_timestamp_seconds')).toEqual([]);
  // The restore drill's metrics are declared without BACKUP_TARGET too (absent() alerts find them), with no sample.
  expect(typesOf(text)).toMatchObject({
    backup_drill_last_success_timestamp_seconds: 'gauge',
    backup_drill_failures_total: 'counter',
  });
  expect(seriesOf(text, 'backup_drill_last_success_timestamp_seconds')).toEqual([]);
  expect(seriesOf(text, 'backup_drill_failures_total')).toEqual([]);
});

it('counts requests by family, method and status, with their durations, and plan-cache hits', async () => {
  const before = await scrape();
  const ok = { family: 'rest', method: 'GET', status: '200' };
  const missing = { family: 'rest', method: 'GET', status: '404' };
  for (let i = 0; i < 3; i++) expect((await rest('auctions?select=id')).status).toBe(200);
  expect((await rest('no_such_table')).status).toBe(404);
  expect((await fetch(`${t.url}/auth/v1/settings`, { headers: { apikey: t.anonKey } })).status).toBe(200);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string>) =>
    (sampleOf(after, name, labels) ?? 0) - (sampleOf(before, name, labels) ?? 0);
  expect(delta('http_requests_total', ok)).toBe(3);
  expect(delta('http_requests_total', missing)).toBe(1);
  expect(delta('http_requests_total', { family: 'auth', method: 'GET', status: '200' })).toBe(1);
  expect(delta('http_request_duration_seconds_count', ok)).toBe(3);
  expect(delta('http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(3);
  expect(delta('http_request_duration_seconds_sum', ok)).toBeGreaterThan(0);
  // The same read three times: the first may plan, the next two are served from the cache.
  expect(delta('rest_plan_cache_lookups_total', { result: 'hit' })).toBeGreaterThanOrEqual(2);
});

it("counts this process's realtime channels and the frames it sends and receives", async () => {
  const user = await signUp(t, 'metrics-rt');
  const before = await scrape();
  const channel = await subscribed(user.client.channel('metrics-room'));
  try {
    const joined = await scrape();
    expect(sampleOf(joined, 'realtime_channels', {})! - (sampleOf(before, 'realtime_channels', {}) ?? 0)).toBe(1);
    // The join and its reply at least (the client may have sent a heartbeat too).
    expect(sampleOf(joined, 'realtime_frames_received_total', {})).toBeGreaterThan(
      sampleOf(before, 'realtime_frames_received_total', {}) ?? 0,
    );
    expect(sampleOf(joined, 'realtime_frames_sent_total', {})).toBeGreaterThan(
      sampleOf(before, 'realtime_frames_sent_total', {}) ?? 0,
    );
  } finally {
    await user.client.removeChannel(channel);
  }
  await until(async () => sampleOf(await scrape(), 'realtime_channels', {}) === 0, 'the channel to be left');
});

it('keeps labels bounded: a thousand distinct ids in paths make no new series', async () => {
  const ids = Array.from({ length: 1000 }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 50)
    await Promise.all(
      ids.slice(i, i + 50).map(async (id, j) => {
        const res =
          j % 2 === 0
            ? await rest(`auctions?id=eq.${id}`)
            : await fetch(`${t.url}/storage/v1/object/info/public/${id}`, { headers: { apikey: t.anonKey } });
        await res.arrayBuffer();
      }),
    );
  // A made-up method is one label value, not one per method.
  await fetch(`${t.url}/rest/v1/auctions`, { method: 'PURGE', headers: { apikey: t.anonKey } }).catch(() => {});
  const text = await scrape();
  expect(seriesOf(text, 'http_requests_total').length).toBeLessThan(20);
  for (const line of seriesOf(text, 'http_requests_total'))
    expect(line).toMatch(
      /^http_requests_total\{family="(auth|rest|storage|functions|realtime|other)",method="[A-Z]+",status="\d{3}"\} \d+$/,
    );
  expect(text).not.toContain(ids[0]);
  expect(text).not.toContain(ids[1]);
  expect(text).not.toContain('PURGE');
});

it('reads the queue gauges from the database at scrape time', async () => {
  const before = sampleOf(await scrape(), 'mail_outbox_messages', {});
  await t.db.sql`insert into auth.mail_outbox (to_email, from_email, subject, text_body)
    values ('a@example.com', 'b@example.com', 's', 't'), ('c@example.com', 'b@example.com', 's', 't')`;
  const text = await scrape();
  expect(sampleOf(text, 'mail_outbox_messages', {})).toBe((before ?? 0) + 2);
  expect(sampleOf(text, 'webhook_deliveries_pending', {})).toBe(0);
  // The server's own request connections, as PostgreSQL lists them.
  const pools = seriesOf(text, 'db_pool_connections').join('\n');
  expect(pools).toMatch(/db_pool_connections\{pool="auction-ops",state="(idle|active)"\} [1-9]/);
});

describe('the documentation', () => {
  const docs = (name: string) => readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');

  it('describes every metric the server exports', async () => {
    const page = docs('observability.md');
    const ours = Object.keys(typesOf(await scrape())).filter((n) => !/^(process|nodejs)_/.test(n));
    expect(ours.length).toBeGreaterThan(15);
    for (const name of ours) expect(page, name).toContain(`\`${name}\``);
  });

  it('builds the Grafana dashboard from metrics that exist', async () => {
    const types = typesOf(await scrape());
    const dashboard = JSON.parse(docs('grafana-dashboard.json')) as { panels: { targets: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(5);
    const used = new Set(
      exprs.flatMap(
        (e) => e.match(/\b[a-z_]+_(total|seconds|bucket|pending|connections|bytes|lookups_total|p99_seconds)\b/g) ?? [],
      ),
    );
    for (const name of used) expect(types[name.replace(/_bucket$/, '')], name).toBeDefined();
  });
});

describe('METRICS_ENABLED=false', () => {
  it('keeps no metrics and has no /metrics', async () => {
    const off = await startTestServer({ METRICS_ENABLED: 'false', METRICS_TOKEN });
    try {
      const res = await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(off.server.ctx.metrics).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});

describe('the exposition linter itself', () => {
  const typed = (body: string) => `# HELP m_total Things.\n# TYPE m_total counter\n${body}\n`;
  it.each([
    ['a clean counter', typed('m_total{a="x \\"q\\" \\\\ \\n"} 3'), []],
    ['a counter without _total', '# TYPE m counter\nm 1\n', ["m: a counter's name ends in _total"]],
    ['a gauge named _total', '# TYPE g_total gauge\ng_total 1\n', ['g_total: only counters end in _total']],
    ['a sample without TYPE', 'x 1\n', ['line 1: x has no TYPE']],
    ['a duplicate series', typed('m_total{a="1"} 1\nm_total{a="1"} 2'), ['line 4: duplicate series m_total{a="1"}']],
    [
      'a bad escape',
      typed('m_total{a="\\t"} 1'),
      ['line 3: invalid escape "\\t" in a label value: m_total{a="\\t"} 1'],
    ],
    ['a bad name', '# TYPE 1m gauge\n', ['line 1: invalid metric name "1m"']],
    [
      'a histogram whose +Inf bucket is not its count',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 3\nh_sum 1\nh_count 4\n',
      ['h{}: +Inf bucket 3 differs from _count 4'],
    ],
    [
      'buckets that are not cumulative',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n',
      ['h{}: bucket counts not cumulative'],
    ],
  ])('%s', (_, text, problems) => {
    expect(lintExposition(text)).toEqual(problems);
  });
});
