// The change router when a subscriber's token changes while a batch of its changes is being checked: the check is
// held on an advisory lock the policy takes, the identity is switched while Postgres waits on it, and the lock is
// released. A change both tokens may see must arrive once; one only the old token could see must not arrive.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { realtimeMigrations } from '../src/index.js';
import { ChangeRouter } from '../src/change-router.js';
import type { Change, TableInfo } from '../src/change-capture.js';
import type { ChangeTarget } from '../src/change-binding.js';
import type { Identity } from '../src/subscriber-identity.js';

const GATE = 4242;
const table: TableInfo = {
  schema: 'public',
  table: 'notes',
  columns: [
    { name: 'id', type: 'int4' },
    { name: 'note', type: 'text' },
  ],
  primaryKey: ['id'],
};

let db: TestDatabase;
let requests: postgres.Sql;
let gate: postgres.ReservedSql;
let router: ChangeRouter;
let nextId = 0;

function identity(claims: Record<string, unknown>): Identity {
  const full = { role: 'authenticated', sub: '00000000-0000-0000-0000-000000000001', ...claims };
  return { role: 'authenticated', claims: JSON.stringify(full), key: `authenticated|${JSON.stringify(full)}`, sub: '' };
}
const plain = identity({});
const gold = identity({ tier: 'gold' });

/** A subscriber as the router sees one: it records the notes of the changes it receives. */
function subscriber(as: Identity) {
  const received: string[] = [];
  const target: ChangeTarget & { identity: Identity } = {
    identity: as,
    joined: true,
    deliverChange(_ids, data) {
      received.push((JSON.parse(data) as { record: { note: string } }).record.note);
    },
  };
  router.add({ id: ++nextId, event: 'INSERT', schema: 'public', table: 'notes', target });
  return { target, received };
}

function insert(note: string): Change {
  return {
    table,
    type: 'INSERT',
    record: { id: String(++nextId), note },
    old: null,
    commitTimestamp: new Date().toISOString(),
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Routes `changes` while the policy check waits on the gate, runs `meanwhile`, then opens the gate. */
async function whileChecking(changes: Change[], meanwhile: () => void): Promise<void> {
  await gate`select pg_advisory_lock(${GATE})`;
  try {
    router.onTransaction(changes);
    await until(async () => {
      const [row] = await db.sql<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`;
      return row!.waiting > 0;
    }, 'the policy check to wait on the gate');
    meanwhile();
  } finally {
    await gate`select pg_advisory_unlock(${GATE})`;
  }
}

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, realtimeMigrations]);
  await db.sql.unsafe(`
    create function public.gate() returns boolean language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock_shared(${GATE});
      return true;
    end $$;
    create table public.notes (id int primary key, note text not null);
    alter table public.notes enable row level security;
    grant select on public.notes to authenticated;
    create policy notes_read on public.notes for select to authenticated using (
      public.gate() and (note <> 'gold' or current_setting('request.jwt.claims', true)::jsonb->>'tier' = 'gold'));
  `);
  requests = postgres(db.requestUrl, { max: 4, onnotice: () => {} });
  gate = await db.sql.reserve();
});

beforeEach(async () => {
  router?.stop();
  router = new ChangeRouter({ sql: requests, log: () => {} });
  await router.start();
});

afterAll(async () => {
  router?.stop();
  gate?.release();
  await requests?.end();
  await db?.drop();
});

describe('a token with other claims while changes are checked', () => {
  it('a change both tokens may see arrives once', async () => {
    const { target, received } = subscriber(plain);
    await whileChecking([insert('shared')], () => {
      target.identity = gold;
      router.identityChanged();
    });
    await until(() => received.length > 0, 'the shared change');
    router.onTransaction([insert('after')]);
    await until(() => received.includes('after'), 'the change after it');
    expect(received).toEqual(['shared', 'after']);
  });

  it('a change only the new token may see arrives, in commit order with the others', async () => {
    const { target, received } = subscriber(plain);
    await whileChecking([insert('before'), insert('gold')], () => {
      target.identity = gold;
      router.identityChanged();
    });
    router.onTransaction([insert('after')]);
    await until(() => received.includes('after'), 'the change after them');
    expect(received).toEqual(['before', 'gold', 'after']);
  });

  it('a change only the old token could see does not arrive under the new one', async () => {
    const { target, received } = subscriber(gold);
    const other = subscriber(gold);
    await whileChecking([insert('gold'), insert('plain')], () => {
      target.identity = plain;
      router.identityChanged();
    });
    router.onTransaction([insert('after')]);
    await until(() => received.includes('after') && other.received.includes('after'), 'the change after them');
    expect(received).toEqual(['plain', 'after']);
    // The subscriber whose token did not change got the batch as it was checked.
    expect(other.received).toEqual(['gold', 'plain', 'after']);
  });

  it('without a change of identity, the batch is delivered as checked', async () => {
    const { received } = subscriber(plain);
    await whileChecking([insert('one'), insert('gold')], () => {});
    router.onTransaction([insert('after')]);
    await until(() => received.includes('after'), 'the change after them');
    expect(received).toEqual(['one', 'after']);
  });
});
