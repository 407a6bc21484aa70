// The availability monitor: PostgreSQL answering is up, even when this process had no time to read the answer
// before the check's timeout came due (a busy host); PostgreSQL not answering is down.
import { connect, createServer, type Server } from 'node:net';
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

it('still goes down when a starved process gets no answer: the late timer is armed again only a few times', async () => {
  // A relay that passes bytes until frozen, then holds the connection open and passes nothing: only the check's
  // timer can tell that the database stopped answering.
  let frozen = false;
  const target = new URL(db.ownerUrl);
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.on('data', (bytes) => frozen || upstream.write(bytes));
    upstream.on('data', (bytes) => frozen || client.write(bytes));
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = new URL(db.ownerUrl);
  url.port = String((relay.address() as AddressInfo).port);
  const monitor = await opened(url.toString(), 100);
  try {
    expect(monitor.up).toBe(true);
    frozen = true;
    let answer: boolean | undefined;
    void monitor.check().then((up) => {
      answer = up;
    });
    // Every turn of the event loop comes after 200 ms without CPU: every timer fires late.
    let turns = 0;
    while (answer === undefined && turns < 30) {
      const until = Date.now() + 200;
      while (Date.now() < until);
      await new Promise((r) => setImmediate(r));
      turns++;
    }
    expect(answer).toBe(false);
    expect(monitor.up).toBe(false);
  } finally {
    await monitor.close();
    relay.close();
  }
});
