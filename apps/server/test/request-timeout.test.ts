// Requests outside the REST engine (auth, storage, functions) under DB_STATEMENT_TIMEOUT_MS too: a table held by a
// long lock (a migration, an operator's maintenance) makes them answer an error once the timeout passes, instead of
// waiting for the lock with one of the pool's few connections each until the pool is gone for every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type SignedUpUser, type TestServer } from './support/test-server.js';

let t: TestServer;
let db: TestDatabase;
let user: SignedUpUser;
let auctionId: string;
// Far past the 1 s timeout: a request still waiting then is one that waits for the lock.
const HANG = 30_000;

beforeAll(async () => {
  t = await startTestServer({ DB_STATEMENT_TIMEOUT_MS: '1000', WORKERS_ENABLED: 'false' });
  db = t.db;
  user = await t.signUp('locked-out@timeout.test', 'Locked Out');
  const created = await user.client.from('auctions').insert({ name: 'T', slug: 'timeout-t' }).select().single();
  auctionId = created.data!.id;
});
afterAll(async () => {
  await t?.stop();
});

/** Runs `during` while the owner holds `table` in ACCESS EXCLUSIVE mode, then lets go. */
async function whileLocked(table: string, during: () => Promise<void>): Promise<void> {
  const owner = await db.sql.reserve();
  try {
    await owner`begin`;
    await owner.unsafe(`lock table ${table} in access exclusive mode`);
    await during();
  } finally {
    await owner`rollback`;
    owner.release();
  }
}

const service = () => ({ apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` });

// Each family answers its own 500 (as PostgREST answers 57014 with 500): the error field its clients read.
const probes: [string, string, () => Promise<Response>, Record<string, string>][] = [
  [
    'storage: list buckets',
    'storage.buckets',
    () => fetch(`${t.url}/storage/v1/bucket`, { headers: service(), signal: AbortSignal.timeout(HANG) }),
    { statusCode: '500', error: 'internal' },
  ],
  [
    'auth: the signed-in user',
    'auth.users',
    () =>
      fetch(`${t.url}/auth/v1/user`, {
        headers: { apikey: t.anonKey, authorization: `Bearer ${user.token}` },
        signal: AbortSignal.timeout(HANG),
      }),
    { error_code: 'unexpected_failure' },
  ],
  [
    'functions: generate-invite-link',
    'public.auction_invitations',
    () =>
      fetch(`${t.url}/functions/v1/generate-invite-link`, {
        method: 'POST',
        headers: { apikey: t.anonKey, authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ auction_id: auctionId, role: 'team_member' }),
        signal: AbortSignal.timeout(HANG),
      }),
    { code: 'INTERNAL_ERROR' },
  ],
];

describe('a request whose table is locked', () => {
  it('sets the timeout as the request role’s default in this database', async () => {
    const [row] = await db.sql<{ settings: string[] }[]>`
      select setconfig as settings from pg_db_role_setting
       where setrole = 'authenticator'::regrole
         and setdatabase = (select oid from pg_database where datname = current_database())`;
    expect(row?.settings).toContain('statement_timeout=1000ms');
  });

  it.each(probes)(
    '%s answers an error instead of waiting for the lock, and works again after',
    async (_n, table, probe, error) => {
      await whileLocked(table, async () => {
        const response = await probe();
        expect(response.status).toBe(500);
        expect(await response.json()).toMatchObject(error);
      });
      const again = await probe();
      expect(again.status, await again.clone().text()).toBe(200);
    },
  );

  it('leaves the pool usable: more locked requests than connections, then a REST read', async () => {
    await whileLocked('storage.buckets', async () => {
      const statuses = await Promise.all(Array.from({ length: 25 }, async () => (await probes[0]![2]()).status));
      expect(new Set(statuses)).toEqual(new Set([500]));
    });
    const read = await user.client.from('auctions').select('id').eq('id', auctionId);
    expect(read.error).toBeNull();
    expect(read.data).toHaveLength(1);
  });
});
