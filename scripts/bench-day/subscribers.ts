// A realtime subscriber process: one supabase-js client per subscriber (the apps' own library, with `ws` as its
// transport on Node 20), signed in with its user's session, subscribed to postgres_changes INSERTs of its table and
// filter under RLS. Each change is timed from its commit_timestamp to its receipt; supabase-js rejoins by itself
// after an outage, as the apps do.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { recordBuffer, tell } from './child.js';

const fromServer = createRequire(join(import.meta.dirname, '../../apps/server/package.json'));
// The root package does not depend on supabase-js (the server's tests do): the little of it used here, typed here.
interface Channel {
  on(
    type: 'postgres_changes',
    filter: { event: string; schema: string; table: string; filter: string },
    callback: (payload: { commit_timestamp: string; new: Record<string, unknown> }) => void,
  ): Channel;
  subscribe(callback: (status: string) => void): Channel;
}
interface SupabaseClient {
  auth: { setSession(session: { access_token: string; refresh_token: string }): Promise<{ error: Error | null }> };
  channel(name: string): Channel;
  removeAllChannels(): Promise<unknown>;
}
const { createClient } = fromServer('@supabase/supabase-js') as {
  createClient(url: string, key: string, options: object): SupabaseClient;
};
const WebSocket = fromServer('ws') as unknown;

export interface Subscription {
  token: string;
  refreshToken: string;
  table: string;
  filter: string;
}

interface Start {
  type: 'start';
  url: string;
  anonKey: string;
  subscriptions: Subscription[];
}

const clients: SupabaseClient[] = [];
const buffer = recordBuffer();
/** How long a subscriber may take to join before the run goes on without it (it may still join later). */
const JOIN_DEADLINE_MS = 60_000;

process.on('message', (m: Start | { type: 'stop' }) => {
  if (m.type === 'start') void subscribeAll(m);
  else if (m.type === 'stop') void stop();
});

tell({ type: 'ready' });

async function subscribeOne(start: Start, s: Subscription, i: number): Promise<boolean> {
  const client = createClient(start.url, start.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  clients.push(client);
  const { error } = await client.auth.setSession({ access_token: s.token, refresh_token: s.refreshToken });
  if (error) throw error;
  // Joined once SUBSCRIBED arrives: a join that timed out or was refused is retried by realtime-js itself.
  return new Promise<boolean>((resolve) => {
    let joined = false;
    const deadline = setTimeout(() => resolve(false), JOIN_DEADLINE_MS);
    client
      .channel(`day-${i}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: s.table, filter: s.filter }, (payload) => {
        const now = Date.now();
        buffer.push('realtime', {
          t: now,
          ms: now - Date.parse(payload.commit_timestamp),
          table: s.table,
          id: String((payload.new as { id?: string }).id),
        });
      })
      .subscribe((status) => {
        if (status !== 'SUBSCRIBED') return;
        if (!joined) {
          joined = true;
          clearTimeout(deadline);
          resolve(true);
        }
      });
  });
}

async function subscribeAll(start: Start) {
  let next = 0;
  let ok = 0;
  let failed = 0;
  // A few joins at a time, as a crowd of phones would arrive, without a stampede of sign-ins.
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < start.subscriptions.length) {
        const i = next++;
        try {
          if (await subscribeOne(start, start.subscriptions[i]!, i)) ok++;
          else failed++;
        } catch (error) {
          failed++;
          tell({ type: 'log', line: `subscriber ${i}: ${error}` });
        }
      }
    }),
  );
  tell({ type: 'started', subscribed: ok, failed });
}

async function stop() {
  buffer.close();
  await Promise.all(clients.map((c) => c.removeAllChannels().catch(() => {})));
  tell({ type: 'done' });
  setTimeout(() => process.exit(0), 200);
}
