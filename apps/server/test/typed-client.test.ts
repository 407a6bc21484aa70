// The generated packages/domain/types/database.ts in use: createClient<Database>() types real app queries (an
// embed, an insert, an RPC) and rejects wrong ones at compile time (`pnpm typecheck` checks the @ts-expect-error
// lines: each fails the typecheck if the mistake compiles); the same queries then run against the server.
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import type { Database } from '../../../packages/domain/types/database.js';
import { startTestServer, TEST_CLIENT_OPTIONS, type TestServer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

it('types an insert, a select with an embed and an RPC, and runs them', async () => {
  const user = await server.signUp('typed-client@example.com');
  const db = createClient<Database>(server.url, server.anonKey, {
    ...TEST_CLIENT_OPTIONS,
    global: { headers: { Authorization: `Bearer ${user.token}` } },
  });

  const created = await db.from('auctions').insert({ name: 'Typed', slug: 'typed-client' }).select('id').single();
  expect(created.error).toBeNull();
  expectTypeOf(created.data).toEqualTypeOf<{ id: string } | null>();
  const auctionId = created.data!.id;

  await db.from('channels').insert({ auction_id: auctionId, name: 'general-typed' });
  const channels = await db.from('channels').select('name, auctions(slug)').eq('auction_id', auctionId);
  expect(channels.error).toBeNull();
  expectTypeOf(channels.data).toEqualTypeOf<{ name: string; auctions: { slug: string } }[] | null>();
  expect(channels.data).toContainEqual({ name: 'general-typed', auctions: { slug: 'typed-client' } });

  const role = await db.rpc('get_user_auction_role', { p_auction_id: auctionId });
  expect(role.error).toBeNull();
  expectTypeOf(role.data).toEqualTypeOf<string | null>();
  expect(role.data).toBe('owner');
});

// Compiled, never run: the mistakes the types must reject.
export function rejectedQueries(db: ReturnType<typeof createClient<Database>>) {
  // @ts-expect-error no such table
  db.from('auction');
  // @ts-expect-error `slug` is required
  db.from('auctions').insert({ name: 'x' });
  // @ts-expect-error `name` is a string
  db.from('auctions').insert({ name: 1, slug: 'x' });
  // @ts-expect-error the argument is p_auction_id
  db.rpc('get_user_auction_role', { auction_id: 'x' });
  // @ts-expect-error no such function
  db.rpc('get_user_auction_roles', { p_auction_id: 'x' });
}
