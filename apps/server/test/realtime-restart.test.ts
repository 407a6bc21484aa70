// A server killed with SIGKILL and started again: realtime-js reconnects, rejoins, and later changes arrive.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { SupabaseClient } from '@supabase/supabase-js';
import { signApiKey } from '@auction-ops/auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { serverProcess } from './support/test-server.js';
import { PASSWORD, realtimeClient, sleep, subscribed, until } from './realtime.fixture.js';

type Row = Record<string, unknown>;
let db: TestDatabase;
let dir: string;
const clients: SupabaseClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase([]);
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-realtime-kill-'));
});

afterAll(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a server killed and restarted', () => {
  it('its clients reconnect and receive later changes', async () => {
    const port = await findFreePort();
    const proc = serverProcess(
      {
        LOG_LEVEL: 'warn',
        DATA_DIR: dir,
        DATABASE_URL: db.ownerUrl,
        JWT_SECRET: 'k'.repeat(40),
        WORKERS_ENABLED: 'false',
        RATE_LIMITS_ENABLED: 'false',
      },
      port,
    );
    let running = proc.start();
    const cleanup: Array<() => Promise<void>> = [];
    try {
      await until(proc.healthy, 'the server', 60_000);
      const anonKey = await signApiKey('k'.repeat(40), 'anon');
      const client = realtimeClient({ url: `http://127.0.0.1:${port}`, anonKey });
      clients.push(client);
      const { data, error } = await client.auth.signUp({ email: 'survivor@realtime.test', password: PASSWORD });
      if (error) throw error;
      const userId = data.user!.id;
      const [auction] = await db.sql<{ id: string }[]>`
        insert into public.auctions (name, slug) values ('Restart', 'restart') returning id`;
      await db.sql`insert into public.auction_members (auction_id, user_id, role)
        values (${auction!.id}, ${userId}, 'owner')`;
      const [channel] = await db.sql<{ id: string }[]>`
        insert into public.channels (auction_id, name) values (${auction!.id}, 'yard') returning id`;
      const got: Row[] = [];
      await subscribed(
        client
          .channel('survivor')
          .on(
            'postgres_changes',
            { event: 'INSERT', schema: 'public', table: 'messages', filter: `channel_id=eq.${channel!.id}` },
            (p) => got.push(p.new as Row),
          ),
      );
      running.child.kill('SIGKILL');
      await running.exited;
      running = proc.start();
      await until(proc.healthy, 'the restarted server', 60_000);
      // realtime-js reconnects with backoff and rejoins; a write after that must arrive.
      const writer = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
      cleanup.push(() => writer.end());
      await until(
        async () => {
          await writer`insert into public.messages (auction_id, channel_id, user_id, content)
          values (${auction!.id}, ${channel!.id}, ${userId}, 'after restart')`;
          await sleep(500);
          return got.length > 0;
        },
        'a change after the restart',
        30_000,
      );
      expect(got[0]).toMatchObject({ content: 'after restart' });
    } finally {
      for (const step of cleanup) await step();
      for (const c of clients) await c.removeAllChannels();
      running.child.kill('SIGTERM');
      await running.exited;
    }
  }, 120_000);
});
