import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
});
afterAll(async () => {
  await db.drop();
});

it('a new auth user gets a public profile', async () => {
  const [u] = await db.sql`insert into auth.users (email, raw_user_meta_data) values ('a@x.test', '{"full_name":"Ann"}')
      returning id`;
  const [p] = await db.sql`select email, full_name from public.users where id = ${u.id}`;
  expect(p).toEqual({ email: 'a@x.test', full_name: 'Ann' });
});
