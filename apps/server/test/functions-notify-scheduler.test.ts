// The overdue-submission scheduler inside the server: two servers on one database both fire at the same
// moments (every 3 s here), and the advisory lock plus the notice record let exactly one of them notify.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { startFakeExpo, type FakeExpo } from '../../../packages/functions/src/push/testing/fake-expo-server.js';
import { loadConfig, startServer, type RunningServer } from '../src/index.js';
import { arrangeOverdueLocation, until } from './functions-notify.fixture.js';

let db: TestDatabase;
let expo: FakeExpo;
const servers: RunningServer[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  expo = await startFakeExpo();
  db = await createTestDatabase([]);
  for (let i = 0; i < 2; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'auction-ops-scheduler-'));
    dirs.push(dir);
    servers.push(
      await startServer(
        loadConfig({
          PORT: '0',
          DATABASE_URL: db.ownerUrl,
          DATA_DIR: dir,
          LOG_LEVEL: 'silent',
          JWT_SECRET: 's'.repeat(40),
          WEBHOOK_DISPATCHER_ENABLED: 'false',
          EXPO_PUSH_URL: expo.url,
          PENDING_CHECK_ENABLED: 'true',
          PENDING_CHECK_INTERVAL_MINUTES: '0.05',
        }),
      ),
    );
  }
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await db.drop();
  await expo.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('check-pending-submissions scheduler', () => {
  it('only one of two servers sends the overdue notification', async () => {
    const { ownerId } = await arrangeOverdueLocation(db, {
      email: 'owner@sched.test',
      slug: 'sched',
      pushToken: 'ExponentPushToken[olga]',
      location: 'Back Lot',
    });

    const reminders = () => expo.delivered().filter((m) => m.data?.type === 'pending_submissions');
    await until(() => reminders().length > 0, 'a scheduled run', 20_000);
    // Let both schedulers fire twice more: the pair was told, so nobody sends again within the frequency.
    await new Promise((r) => setTimeout(r, 6500));
    expect(reminders().map((m) => [m.to, m.title])).toEqual([
      ['ExponentPushToken[olga]', 'Back Lot is due for a count'],
    ]);
    const notices = await db.sql`select user_id from notifications.pending_notices`;
    expect(notices.map((n) => n.user_id)).toEqual([ownerId]);
  });
});
