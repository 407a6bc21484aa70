// Shared arrangements of the realtime tests: servers on one test database, users signed up through supabase-js
// whose clients open real WebSockets (the `ws` package as realtime-js's transport), and channel helpers.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from './support/test-server.js';

export const PASSWORD = 'correct-horse-battery-9';

export interface RealtimeUser {
  id: string;
  email: string;
  token: string;
  client: SupabaseClient;
}

/** A client as the apps make one; its realtime connection uses the session it signs in with. */
export function realtimeClient(server: { url: string; anonKey: string }): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never, heartbeatIntervalMs: 5_000 },
  });
}

/** A server as the realtime tests want it: sign-ups unthrottled, no background workers; `env` adds or overrides. */
export function startRealtimeServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '1000', WORKERS_ENABLED: 'false', ...env });
}

/** An access token for the user signed by the server's secret, living the given seconds. */
export function accessTokenFor(
  server: TestServer,
  user: { id: string },
  lifetimeSeconds: number,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'authenticated', aud: 'authenticated', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .sign(new TextEncoder().encode(server.jwtSecret));
}

export async function signUp(server: TestServer, localPart: string): Promise<RealtimeUser> {
  const client = realtimeClient(server);
  const email = `${localPart}-${Math.random().toString(36).slice(2, 8)}@realtime.test`;
  const { data, error } = await client.auth.signUp({
    email,
    password: PASSWORD,
    options: { data: { full_name: localPart } },
  });
  if (error) throw error;
  const token = data.session!.access_token;
  return { id: data.user!.id, email, token, client };
}

/** An auction with an owner and members (inserted as the owner role would), and one chat channel. */
export async function arrangeAuction(
  server: TestServer,
  members: Array<[RealtimeUser, 'owner' | 'admin' | 'team_member']>,
): Promise<{ auctionId: string; channelId: string }> {
  const sql = server.db.sql;
  const [auction] = await sql<{ id: string }[]>`
    insert into public.auctions (name, slug) values ('Realtime Auction',
      ${`rt-${Math.random().toString(36).slice(2, 10)}`})
    returning id`;
  for (const [u, role] of members)
    await sql`insert into public.auction_members (auction_id, user_id, role) values (${auction!.id}, ${u.id}, ${role})
              on conflict do nothing`;
  const [channel] = await sql<{ id: string }[]>`
    insert into public.channels (auction_id, name) values (${auction!.id}, 'yard') returning id`;
  return { auctionId: auction!.id, channelId: channel!.id };
}

/** Subscribes and resolves on SUBSCRIBED; rejects with the server's reason on an error or a timeout. */
export function subscribed(channel: RealtimeChannel): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status));
    });
  });
}

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
