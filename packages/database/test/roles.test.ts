import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
import { ensureRoles } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(async () => {
  await db.drop();
});

it('keeps the password stored in the database, so servers sharing a cluster do not reset it', async () => {
  expect(await ensureRoles(db.ownerUrl)).toBe(db.authenticatorPassword);
  expect(await ensureRoles(db.ownerUrl)).toBe(db.authenticatorPassword);
  const request = postgres(db.requestUrl, { max: 1 });
  try {
    expect(await request`select current_user as who`).toEqual([{ who: 'authenticator' }]);
  } finally {
    await request.end();
  }
});

it('does not let the request role read the stored password', async () => {
  const request = postgres(db.requestUrl, { max: 1 });
  try {
    await expect(request`select value from auction_ops.settings`).rejects.toMatchObject({ code: '42501' });
  } finally {
    await request.end();
  }
});

it('runs work under a request role with its claims, and refuses any other role', async () => {
  const { inRequestTransaction } = await import('../src/index.js');
  const request = postgres(db.requestUrl, { max: 1 });
  try {
    const [row] = await inRequestTransaction(
      request,
      'authenticated',
      { sub: 'u-1', role: 'authenticated' },
      (tx) => tx`select current_user as who, current_setting('request.jwt.claims', true)::json ->> 'sub' as sub`,
    );
    expect(row).toEqual({ who: 'authenticated', sub: 'u-1' });
    await expect(inRequestTransaction(request, 'postgres' as never, {}, (tx) => tx`select 1`)).rejects.toThrow(
      /not a request role/,
    );
    // The role does not outlive the transaction.
    expect(await request`select current_user as who`).toEqual([{ who: 'authenticator' }]);
  } finally {
    await request.end();
  }
});

it('sets the request connections’ statement timeout for this database alone, writing only a change', async () => {
  const { requestStatementTimeout, setRequestStatementTimeout } = await import('../src/roles.js');
  const other = await createTestDatabase([]);
  const row = () => db.sql<{ xmin: string }[]>`
    select s.xmin::text from pg_db_role_setting s
     where s.setrole = 'authenticator'::regrole
       and s.setdatabase = (select oid from pg_database where datname = current_database())`;
  try {
    await setRequestStatementTimeout(db.ownerUrl, 2500);
    expect(await requestStatementTimeout(db.sql)).toBe(2500);
    const written = (await row())[0]!.xmin;
    await setRequestStatementTimeout(db.ownerUrl, 2500);
    expect((await row())[0]!.xmin).toBe(written);
    expect(await requestStatementTimeout(other.sql)).toBeUndefined();
    // A new login of the request role has it.
    const request = postgres(db.requestUrl, { max: 1 });
    try {
      expect(await request`show statement_timeout`).toEqual([{ statement_timeout: '2500ms' }]);
    } finally {
      await request.end();
    }
    await setRequestStatementTimeout(db.ownerUrl, 4000);
    expect(await requestStatementTimeout(db.sql)).toBe(4000);
  } finally {
    await other.drop();
  }
});
