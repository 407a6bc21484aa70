// WEB_CONCURRENCY=2 against the real entry point: one scrape of GET /metrics, whichever worker answers it, counts
// the requests of both processes (summed through the primary), passes the text format's rules, keeps the process
// start time that aggregation would drop, reports WAL archiving once it ran, and the guard holds in a worker too.
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { findFreePort, runningClusterUrl } from '@auction-ops/database';
import { serverProcess, workerPids } from './support/test-server.js';
import { sampleOf, typesOf } from './support/prometheus-text.js';
import { lintExposition } from './support/prometheus-lint.js';

const METRICS_TOKEN = 'cluster-metrics-token-0123456789';
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-metrics-cluster-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** prom-client's own gauges of handle counts are named _total (metrics.test.ts says why they stay). */
const PROM_CLIENTS = /^nodejs_active_(resources|handles|requests)_total: only counters end in _total$/;

/** A GET on a new connection each time, so the primary hands consecutive requests to different workers. */
function fetchFresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** Scrapes until `ok` holds for the text, with a deadline. */
async function untilScrape(url: string, ok: (body: string) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await fetchFresh(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
    if (ok(body)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('sums the samples of both worker processes in one scrape', async () => {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = serverProcess(
    {
      DATA_DIR: join(root, 'data'),
      BACKUP_TARGET: join(root, 'target'),
      BACKUP_ARCHIVE_TIMEOUT_SECONDS: '1',
      JWT_SECRET: 'metrics-cluster-secret-'.padEnd(40, 'x'),
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
      RATE_LIMITS_ENABLED: 'false',
      METRICS_TOKEN,
    },
    port,
  );
  const startedAt = Date.now();
  const server = proc.start();
  try {
    for (let i = 0; i < 1200 && !server.output().includes('service_role key:'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await proc.healthy()).toBe(true);
    expect(workerPids(server.child.pid!)).toHaveLength(2);
    const serviceKey = /service_role key:\s+(\S+)/.exec(server.output())?.[1];
    expect(serviceKey).toBeDefined();
    const requests = 40;
    for (let i = 0; i < requests; i++)
      expect((await fetchFresh(`${url}/rest/v1/auctions`, { apikey: serviceKey! })).status).toBe(200);
    // Several scrapes land on different workers; each must see every process's requests.
    for (let i = 0; i < 4; i++) {
      const scrape = await fetchFresh(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
      expect(scrape.status).toBe(200);
      expect(sampleOf(scrape.body, 'http_requests_total', { family: 'rest', method: 'GET', status: '200' })).toBe(
        requests,
      );
      expect(
        sampleOf(scrape.body, 'http_request_duration_seconds_count', { family: 'rest', method: 'GET', status: '200' }),
      ).toBe(requests);
    }
    // Before any segment is archived the age has no sample; then a finished segment (switched to, as archive_timeout
    // does after changes) reaches BACKUP_TARGET and the age appears.
    const before = (await fetchFresh(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` })).body;
    const owner = postgres(runningClusterUrl(join(root, 'data', 'postgres'))!, { max: 1, onnotice: () => {} });
    try {
      const [archiver] = await owner`select last_archived_time from pg_stat_archiver`;
      if (archiver!.last_archived_time === null)
        expect(sampleOf(before, 'backup_archive_last_success_age_seconds', {})).toBeUndefined();
      await owner`select pg_switch_wal()`;
    } finally {
      await owner.end();
    }
    await untilScrape(
      url,
      (body) => sampleOf(body, 'backup_archive_last_success_age_seconds', {}) !== undefined,
      'a WAL segment archived',
    );
    const scrape = (await fetchFresh(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` })).body;
    expect(lintExposition(scrape).filter((p) => !PROM_CLIENTS.test(p))).toEqual([]);
    const types = typesOf(scrape);
    expect(types).toMatchObject({ backup_archive_failures_total: 'counter', process_start_time_seconds: 'gauge' });
    // The primary's start: before its workers answered, and not in the future.
    const started = sampleOf(scrape, 'process_start_time_seconds', {});
    expect(started).toBeGreaterThan(startedAt / 1000 - 5);
    expect(started).toBeLessThanOrEqual(Date.now() / 1000);
    expect(sampleOf(scrape, 'backup_archive_last_success_age_seconds', {})).toBeLessThan(120);
    expect(sampleOf(scrape, 'backup_archive_failures_total', {})).toBe(0);
    const anonKey = /anon key:\s+(\S+)/.exec(server.output())?.[1];
    expect((await fetchFresh(`${url}/metrics`, { apikey: anonKey! })).status).toBe(401);
    expect((await fetchFresh(`${url}/metrics`)).status).toBe(401);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}, 180_000);
