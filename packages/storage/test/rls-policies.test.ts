// Row-level security on storage.objects, as a table of (caller, action, object) -> outcome, evaluated by
// Postgres under each request role exactly as the server runs requests (authenticator + set_config).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, domainStorageMigrations } from '@auction-ops/domain';
import { storageMigrations } from '../src/index.js';
import { asCaller, type Caller, readAsCaller, writeAsCaller } from '../src/caller-transaction.js';

type Who = 'anon' | 'alice' | 'bob' | 'admin' | 'service';
type Action = 'read' | 'insert' | 'update' | 'delete';
type Outcome = 'ok' | 'denied' | 'hidden';

// Objects: alice's file in the public bucket, alice's file in a private bucket.
const CASES: Array<[Who, Action, 'public' | 'private', 'alice' | 'bob', Outcome]> = [
  ['anon', 'read', 'public', 'alice', 'ok'],
  ['anon', 'read', 'private', 'alice', 'hidden'],
  // anon holds every privilege on the table (as in Supabase): the policies alone refuse its writes.
  ['anon', 'insert', 'public', 'alice', 'denied'],
  ['anon', 'insert', 'private', 'alice', 'denied'],
  ['anon', 'update', 'public', 'alice', 'hidden'],
  ['anon', 'update', 'private', 'alice', 'hidden'],
  ['anon', 'delete', 'public', 'alice', 'hidden'],
  ['anon', 'delete', 'private', 'alice', 'hidden'],
  ['alice', 'read', 'private', 'alice', 'ok'],
  ['alice', 'insert', 'public', 'alice', 'ok'],
  ['alice', 'update', 'public', 'alice', 'ok'],
  ['alice', 'delete', 'public', 'alice', 'ok'],
  ['bob', 'read', 'public', 'alice', 'ok'],
  ['bob', 'read', 'private', 'alice', 'hidden'],
  ['bob', 'insert', 'public', 'alice', 'denied'],
  ['bob', 'insert', 'public', 'bob', 'ok'],
  ['bob', 'update', 'public', 'alice', 'hidden'],
  ['bob', 'delete', 'public', 'alice', 'hidden'],
  ['bob', 'update', 'private', 'alice', 'hidden'],
  ['bob', 'delete', 'private', 'alice', 'hidden'],
  ['bob', 'insert', 'private', 'alice', 'denied'],
  ['admin', 'read', 'private', 'alice', 'ok'],
  ['admin', 'insert', 'public', 'alice', 'ok'],
  ['admin', 'update', 'private', 'alice', 'ok'],
  ['admin', 'delete', 'private', 'alice', 'ok'],
  ['service', 'read', 'private', 'alice', 'ok'],
  ['service', 'delete', 'private', 'alice', 'ok'],
];

describe('storage.objects row-level security', () => {
  let db: TestDatabase;
  let request: postgres.Sql;
  const ids = { alice: randomUUID(), bob: randomUUID(), admin: randomUUID() };
  const bucketOf = { public: 'lot-images', private: 'private-docs' };

  const callerOf = (who: Who): Caller => {
    if (who === 'anon') return { role: 'anon', claims: { role: 'anon' } };
    if (who === 'service') return { role: 'service_role', claims: { role: 'service_role' } };
    return { role: 'authenticated', claims: { sub: ids[who], role: 'authenticated' } };
  };

  beforeAll(async () => {
    db = await createTestDatabase([authMigrations, storageMigrations, domainMigrations, domainStorageMigrations]);
    request = postgres(db.requestUrl, { max: 2, onnotice: () => {} });
    for (const [name, id] of Object.entries(ids))
      await db.sql`insert into auth.users (id, email) values (${id}, ${`${name}@example.test`})`;
    await db.sql`insert into public.super_admins (user_id) values (${ids.admin})`;
    await db.sql`insert into storage.buckets (id, name, public) values ('private-docs', 'private-docs', false)`;
  });
  afterAll(async () => {
    await request?.end();
    await db?.drop();
  });

  it('has the helpers Supabase policies use', async () => {
    const [row] = await db.sql`select storage.foldername('a/b/c.png') as f, storage.filename('a/b/c.png') as n,
      storage.extension('a/b/c.tar.gz') as e, storage.extension('a/README') as none`;
    expect(row).toEqual({ f: ['a', 'b'], n: 'c.png', e: 'gz', none: '' });
  });

  // Each case runs as the server's transactions do, and as one round trip (readAsCaller, writeAsCaller).
  const RUNS = CASES.flatMap((c) => [[...c, 'asCaller'] as const, [...c, 'in one round trip'] as const]);

  it.each(RUNS)('%s %s on %s bucket, %s folder -> %s (%s)', async (who, action, bucketKind, folder, outcome, how) => {
    const bucket = bucketOf[bucketKind];
    const name = `${ids[folder]}/${randomUUID()}.png`;
    if (action !== 'insert') {
      await db.sql`insert into storage.objects (bucket_id, name, owner_id, version)
        values (${bucket}, ${name}, ${ids[folder]}, ${randomUUID()})`;
    }
    const statement = (tx: postgres.ReservedSql) => {
      switch (action) {
        case 'read':
          return tx`select id from storage.objects where bucket_id = ${bucket} and name = ${name}`;
        case 'insert':
          return tx`insert into storage.objects (bucket_id, name, version)
            values (${bucket}, ${name}, ${randomUUID()}) returning id`;
        case 'update':
          return tx`update storage.objects set updated_at = now() where bucket_id = ${bucket} and name = ${name}
            returning id`;
        case 'delete':
          return tx`delete from storage.objects where bucket_id = ${bucket} and name = ${name} returning id`;
      }
    };
    const caller = callerOf(who);
    const run = () => {
      if (how === 'asCaller') return asCaller(request, caller, async (tx) => statement(tx));
      return (action === 'read' ? readAsCaller : writeAsCaller)(request, caller, statement);
    };
    if (outcome === 'denied') {
      await expect(run()).rejects.toMatchObject({ code: '42501', message: expect.stringContaining('row-level') });
    } else {
      expect(await run()).toHaveLength(outcome === 'ok' ? 1 : 0);
    }
    // A refused write left the object as it was (and a refused insert made none).
    if (outcome !== 'ok' && action !== 'read') {
      const rows = await db.sql`select updated_at, created_at from storage.objects where name = ${name}`;
      if (action === 'insert') expect(rows).toHaveLength(0);
      else expect(rows[0]?.updated_at).toEqual(rows[0]?.created_at);
    }
  });

  it('in one round trip: a failed statement is its own error, rolls back, and leaves the connection usable', async () => {
    const alice = callerOf('alice');
    const name = `${ids.alice}/${randomUUID()}.png`;
    // The insert succeeds, the division fails: the statement's error, and nothing of it is committed.
    await expect(
      writeAsCaller(
        request,
        alice,
        (tx) => tx`with made as (insert into storage.objects (bucket_id, name, version)
          values ('lot-images', ${name}, ${randomUUID()}) returning id) select id, 1 / 0 as boom from made`,
      ),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await db.sql`select 1 from storage.objects where name = ${name}`).toHaveLength(0);
    await expect(
      readAsCaller(request, alice, (tx) => tx`delete from storage.objects where name = ${name} returning id`),
    ).rejects.toMatchObject({ code: '25006' });
    // Both connections of the pool answer again, under the role asked for.
    for (let i = 0; i < 4; i++) {
      const [who] = await readAsCaller(request, alice, (tx) => tx`select current_user as role`);
      expect(who).toEqual({ role: 'authenticated' });
    }
    const [made] = await writeAsCaller(
      request,
      alice,
      (tx) => tx`insert into storage.objects (bucket_id, name, version)
        values ('lot-images', ${name}, ${randomUUID()}) returning owner_id`,
    );
    expect(made).toEqual({ owner_id: ids.alice });
  });

  it('lets only super admins and the service role change buckets', async () => {
    const change = (who: Who) =>
      asCaller(request, callerOf(who), (tx) => tx`update storage.buckets set updated_at = now() returning id`);
    expect(await change('alice')).toHaveLength(0);
    expect(await change('anon')).toHaveLength(0);
    expect(await change('admin')).toHaveLength(2);
    expect(await change('service')).toHaveLength(2);
    const create = (who: Who) =>
      asCaller(
        request,
        callerOf(who),
        (tx) => tx`insert into storage.buckets (id, name) values (${who}, ${who}) returning id`,
      );
    await expect(create('alice')).rejects.toMatchObject({ code: '42501' });
    await expect(create('anon')).rejects.toMatchObject({ code: '42501' });
    expect(await create('admin')).toHaveLength(1);
    const remove = (who: Who) =>
      asCaller(request, callerOf(who), (tx) => tx`delete from storage.buckets where id = 'admin' returning id`);
    expect(await remove('bob')).toHaveLength(0);
    expect(await remove('anon')).toHaveLength(0);
    expect(await remove('admin')).toHaveLength(1);
    const buckets = await asCaller(request, callerOf('anon'), (tx) => tx`select id from storage.buckets order by id`);
    expect(buckets.map((b) => b.id)).toEqual(['lot-images', 'private-docs']);
  });
});
