// WEB_CONCURRENCY=2 against the real entry point: one scrape of GET /metrics, whichever worker answers it, counts
// the requests of both processes (summed through the primary), and the guard holds in a worker too.
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findFreePort } from '@auction-ops/database';
import { serverProcess, workerPids } from './support/test-server.js';
import { sampleOf } from './support/prometheus-text.js';

const METRICS_TOKEN = 'cluster-metrics-token-0123456789';
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-metrics-cluster-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

it('sums the samples of both worker processes in one scrape', async () => {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = serverProcess(
    {
      DATA_DIR: dataDir,
      JWT_SECRET: 'metrics-cluster-secret-'.padEnd(40, 'x'),
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
      RATE_LIMITS_ENABLED: 'false',
      METRICS_TOKEN,
    },
    port,
  );
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
    const anonKey = /anon key:\s+(\S+)/.exec(server.output())?.[1];
    expect((await fetchFresh(`${url}/metrics`, { apikey: anonKey! })).status).toBe(401);
    expect((await fetchFresh(`${url}/metrics`)).status).toBe(401);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}, 180_000);
