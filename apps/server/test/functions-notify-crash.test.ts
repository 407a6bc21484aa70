import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { findFreePort } from '@auction-ops/database';
import { startFakeExpo, type FakeExpo } from '../../../packages/functions/src/push/testing/fake-expo-server.js';
import { processEnv, serverProcess } from './support/test-server.js';
import { until } from './functions-notify.fixture.js';

let db: TestDatabase;
let dataDir: string;
let expo: FakeExpo;
beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-notify-crash-'));
  expo = await startFakeExpo();
});
afterAll(async () => {
  await expo.close();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('chat notifications across a crash', () => {
  it('a server killed between the message insert and the push notifies once after restart', async () => {
    const port = await findFreePort();
    const state = { dataDir, databaseUrl: db.ownerUrl, jwtSecret: 'c'.repeat(40) };
    const env = {
      WEBHOOK_DISPATCHER_ENABLED: 'false',
      PENDING_CHECK_ENABLED: 'false',
      EXPO_PUSH_URL: expo.url,
      PUSH_TIMEOUT_MS: '1000',
      PUSH_RETRIES: '1',
      PUSH_RETRY_BACKOFF_MS: '20',
    };
    const proc = serverProcess(processEnv(state, env), port);
    const start = proc.start;
    const health = proc.healthy;

    expo.hold(true);
    const first = start();
    let second: ReturnType<typeof start> | undefined;
    try {
      await until(health, 'the first server', 60_000);
      const users = await db.sql`
        insert into auth.users (email, raw_user_meta_data)
        select 'u' || g || '@crash.test', jsonb_build_object('full_name', 'User ' || g) from generate_series(1, 3) g
        returning id`;
      const [sender, a, b] = users.map((u) => u.id as string);
      const [auction] = await db.sql`insert into public.auctions (name, slug) values ('Crash', 'crash') returning id`;
      await db.sql`insert into public.auction_members (auction_id, user_id, role)
        values (${auction.id}, ${sender}, 'owner'), (${auction.id}, ${a}, 'admin'),
               (${auction.id}, ${b}, 'team_member')`;
      const [channel] = await db.sql`
        insert into public.channels (auction_id, name) values (${auction.id}, 'ops') returning id`;
      await db.sql`insert into public.user_push_tokens (user_id, token, platform)
        values (${a}, 'ExponentPushToken[a]', 'ios'), (${b}, 'ExponentPushToken[b]', 'android')`;
      const insert = async (content: string) => {
        const [m] = await db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
          values (${auction.id}, ${channel.id}, ${sender}, ${content}) returning id`;
        return m.id as string;
      };

      const inFlight = await insert('first, in flight at the crash');
      await until(() => expo.requests.some((r) => r.messages.some((m) => m.data?.message_id === inFlight)), 'a push');
      first.child.kill('SIGKILL');
      await first.exited;
      const whileDown = await insert('second, written while no server runs');
      const queued = await db.sql`select count(*)::int as n from notifications.push_jobs where status = 'queued'`;
      expect(queued[0].n).toBe(2);

      expo.hold(false);
      second = start();
      await until(health, 'the restarted server', 60_000);
      await until(async () => {
        const [r] = await db.sql`select count(*)::int as n from notifications.push_jobs where status = 'sent'`;
        return r.n === 2;
      }, 'both jobs after the restart');
      for (const id of [inFlight, whileDown]) {
        const got = expo.delivered().filter((m) => m.data?.message_id === id);
        expect(got.map((m) => m.to).sort()).toEqual(['ExponentPushToken[a]', 'ExponentPushToken[b]']);
      }
    } finally {
      for (const p of [first, second]) {
        if (p && p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill('SIGTERM');
          await p.exited;
        }
      }
    }
  });
});
