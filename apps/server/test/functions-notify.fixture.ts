import type { SupabaseClient } from '@supabase/supabase-js';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startFakeExpo, type FakeExpo } from '../../../packages/functions/src/push/testing/fake-expo-server.js';
import type { RunningServer } from '../src/index.js';
import { startTestServer } from './support/test-server.js';

export { TEST_PASSWORD as PASSWORD } from './support/test-server.js';

export { TEST_CLIENT_OPTIONS as CLIENT_OPTIONS } from './support/test-server.js';

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
  /** The usual starting point of a test: see arrangeTeam. */
  arrangeTeam<K extends string>(
    people: Record<K, Person>,
    settings?: Record<string, unknown>,
  ): Promise<{ auctionId: string; users: Record<K, TestUser> }>;
  /** POST (or `method`) /functions/v1/<name> with the anon key, unless `apikey` names another. */
  call(name: string, options?: CallOptions & { apikey?: string }): Promise<FunctionAnswer>;
  close(): Promise<void>;
}

export async function startNotifyHarness(env: Record<string, string> = {}): Promise<NotifyHarness> {
  const expo = await startFakeExpo();
  const t = await startTestServer({
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
  });
  const { db, server } = t;
  const harness: NotifyHarness = {
    db,
    server,
    expo,
    url: server.url,
    arrangeTeam: (people, settings) => arrangeTeam(harness, people, settings),
    call: (name, { apikey, ...options } = {}) => callFunction(server.url, apikey ?? server.ctx.anonKey, name, options),
    signUp: (localPart, fullName) => t.signUp(`${localPart}@notify.test`, fullName),
    async close() {
      await t.stop();
      await expo.close();
    },
  };
  return harness;
}

export { until } from './support/loopback.js';

/**
 * An owner with a push token and an auction whose one location is overdue: always open, created two hours ago,
 * never counted, due every 60 minutes. The reminder it earns is titled "<location> is due for a count".
 */
export async function arrangeOverdueLocation(
  db: TestDatabase,
  names: { email: string; slug: string; pushToken: string; location: string },
): Promise<{ ownerId: string; auctionId: string }> {
  const [owner] = await db.sql`
    insert into auth.users (email, raw_user_meta_data) values (${names.email}, '{"full_name":"Olga Owner"}')
    returning id`;
  const [auction] = await db.sql`
    insert into public.auctions (name, slug) values (${names.slug}, ${names.slug}) returning id`;
  await db.sql`insert into public.auction_members (auction_id, user_id, role)
    values (${auction.id}, ${owner.id}, 'owner')`;
  await db.sql`insert into public.user_push_tokens (user_id, token, platform)
    values (${owner.id}, ${names.pushToken}, 'ios')`;
  await db.sql`insert into public.locations (auction_id, name, submission_frequency_minutes, created_at)
    values (${auction.id}, ${names.location}, 60, now() - interval '2 hours')`;
  return { ownerId: owner.id as string, auctionId: auction.id as string };
}

/** An auction owned by `owner` with the others as members of the given roles (arranged as the owner role). */
export async function arrangeAuction(
  db: TestDatabase,
  owner: TestUser,
  members: Array<[TestUser, Role]>,
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

export type Role = 'owner' | 'admin' | 'team_member';

/** One person of a team: full name, role in the auction (none: an outsider), push tokens to register. */
export interface Person {
  name: string;
  role?: Role;
  /** `'tess'` registers `ExponentPushToken[tess]` on iOS; `['tess', 'android']` on Android. */
  tokens?: Array<string | [string, 'ios' | 'android']>;
}

/**
 * The arrangement most notification tests start from: the people signed up in order (each key is the e-mail's
 * local part), the first one (the owner) creates the auction, the others with a role join it, then every person
 * registers their push tokens.
 */
export async function arrangeTeam<K extends string>(
  h: NotifyHarness,
  people: Record<K, Person>,
  settings: Record<string, unknown> = {},
): Promise<{ auctionId: string; users: Record<K, TestUser> }> {
  const users = {} as Record<K, TestUser>;
  const entries = Object.entries(people) as Array<[K, Person]>;
  for (const [key, person] of entries) users[key] = await h.signUp(key, person.name);
  const [[founder], ...rest] = entries;
  const members = rest.filter(([, p]) => p.role).map(([k, p]) => [users[k], p.role!] as [TestUser, Role]);
  const auctionId = await arrangeAuction(h.db, users[founder], members, settings);
  for (const [key, person] of entries) {
    for (const token of person.tokens ?? []) {
      const [name, platform] = typeof token === 'string' ? [token, 'ios' as const] : token;
      await registerToken(users[key], `ExponentPushToken[${name}]`, platform);
    }
  }
  return { auctionId, users };
}

export { type FakeResend, type ResendCall, startFakeResend } from './support/fake-resend.js';

export interface CallOptions {
  bearer?: string;
  body?: unknown;
  raw?: string;
  method?: string;
}

export interface FunctionAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** POST /functions/v1/<name> over plain fetch, for exact statuses and headers. */
export async function callFunction(
  url: string,
  apikey: string,
  name: string,
  options: CallOptions = {},
): Promise<FunctionAnswer> {
  const headers: Record<string, string> = { apikey, 'content-type': 'application/json' };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const method = options.method ?? 'POST';
  const res = await fetch(`${url}/functions/v1/${name}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : (options.raw ?? JSON.stringify(options.body ?? {})),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers };
}
