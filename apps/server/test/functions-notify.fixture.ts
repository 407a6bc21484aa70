// Shared arrangements of the notification tests: a real server on a test database with a fake Expo server on
// loopback, users signed up through supabase-js, and a polling helper.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { startFakeExpo, type FakeExpo } from '../../../packages/functions/src/push/testing/fake-expo-server.js';
import { loadConfig, startServer, type RunningServer } from '../src/index.js';

export const PASSWORD = 'correct-horse-battery-9';

// Node 20 has no global WebSocket and supabase-js builds its realtime client eagerly; no channel is opened here.
class NoWebSocket {
  constructor() {
    throw new Error('realtime is not used in these tests');
  }
}
export const CLIENT_OPTIONS = {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: NoWebSocket as never },
};

export interface TestUser {
  id: string;
  email: string;
  client: SupabaseClient;
  token: string;
}

export interface NotifyHarness {
  db: TestDatabase;
  server: RunningServer;
  expo: FakeExpo;
  url: string;
  signUp(localPart: string, fullName: string): Promise<TestUser>;
  close(): Promise<void>;
}

export async function startNotifyHarness(env: Record<string, string> = {}): Promise<NotifyHarness> {
  const expo = await startFakeExpo();
  const db = await createTestDatabase([]);
  const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-notify-'));
  const server = await startServer(
    loadConfig({
      PORT: '0',
      DATABASE_URL: db.ownerUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'n'.repeat(40),
      AUTH_RATE_LIMIT_SIGN_UP: '1000',
      AUTH_RATE_LIMIT_SIGN_IN: '1000',
      WEBHOOK_DISPATCHER_ENABLED: 'false',
      EXPO_PUSH_URL: expo.url,
      PUSH_TIMEOUT_MS: '2000',
      PUSH_RETRIES: '1',
      PUSH_RETRY_BACKOFF_MS: '20',
      PENDING_CHECK_ENABLED: 'false',
      APP_URL: 'https://app.example.test',
      ...env,
    }),
  );
  return {
    db,
    server,
    expo,
    url: server.url,
    async signUp(localPart, fullName) {
      const client = createClient(server.url, server.ctx.anonKey, CLIENT_OPTIONS);
      const { data, error } = await client.auth.signUp({
        email: `${localPart}@notify.test`,
        password: PASSWORD,
        options: { data: { full_name: fullName } },
      });
      if (error) throw error;
      return { id: data.user!.id, email: `${localPart}@notify.test`, client, token: data.session!.access_token };
    },
    async close() {
      await server.close();
      await db.drop();
      await expo.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An auction owned by `owner` with the others as members of the given roles (arranged as the owner role). */
export async function arrangeAuction(
  db: TestDatabase,
  owner: TestUser,
  members: Array<[TestUser, 'admin' | 'team_member' | 'owner']>,
  settings: Record<string, unknown> = {},
): Promise<string> {
  const { data, error } = await owner.client
    .from('auctions')
    .insert({ name: 'Notify Auction', slug: `notify-${Math.random().toString(36).slice(2, 10)}`, settings })
    .select('id')
    .single();
  if (error) throw error;
  for (const [u, role] of members)
    await db.sql`insert into public.auction_members (auction_id, user_id, role) values (${data.id}, ${u.id}, ${role})`;
  return data.id as string;
}

export async function registerToken(user: TestUser, token: string, platform: 'ios' | 'android' = 'ios') {
  const { error } = await user.client.from('user_push_tokens').insert({ token, platform });
  if (error) throw error;
}
