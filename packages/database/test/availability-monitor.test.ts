// The availability monitor: PostgreSQL answering is up, even when this process had no time to read the answer
// before the check's timeout came due (a busy host); PostgreSQL not answering is down.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
import { type AvailabilityMonitor, startAvailabilityMonitor } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(async () => {
  await db.drop();
});

const reports: string[] = [];
const report = (_level: string, message: string) => void reports.push(message);

async function opened(url: string, timeoutMs: number): Promise<AvailabilityMonitor> {
  const monitor = startAvailabilityMonitor({ url, intervalMs: 60_000, timeoutMs, report });
  await monitor.check();
  return monitor;
}

it('stays up when the answer came while the process was held past the timeout', async () => {
  const monitor = await opened(db.ownerUrl, 200);
  try {
    expect(monitor.up).toBe(true);
    const checked = monitor.check();
    // Hold the event loop past the timeout: PostgreSQL answers `select 1` meanwhile, and both the answer and the
    // timer are ready when the loop turns again.
    const until = Date.now() + 600;
    while (Date.now() < until);
    expect(await checked).toBe(true);
    expect(monitor.up).toBe(true);
    expect(reports).not.toContain('database unreachable; answering 503 until it is back');
  } finally {
    await monitor.close();
  }
});

it('goes down when the database does not answer within the timeout', async () => {
  // A server that accepts the connection and never says a word: the check's connection cannot be made.
  const silent: Server = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  const monitor = startAvailabilityMonitor({
    url: `postgres://nobody@127.0.0.1:${port}/postgres`,
    intervalMs: 60_000,
    timeoutMs: 200,
    report,
  });
  try {
    expect(await monitor.check()).toBe(false);
    expect(monitor.up).toBe(false);
    expect(monitor.reason).toBe('no answer within 200 ms');
  } finally {
    await monitor.close();
    silent.close();
  }
});
