// The pool a request runs on: `sql` of the request when given (a read replica's, chosen by the embedding server),
// else the engine's own; and the LISTEN for schema reloads on the client given as `listenSql`.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../database/src/testing/index.js';
import { createRestEngine, type EngineRequest, type RestEngine } from '../src/index.js';
import { FIXTURE } from './helpers.js';

let db: TestDatabase;
let main: postgres.Sql;
let other: postgres.Sql;
let listener: postgres.Sql;
let engine: RestEngine;

const pool = (name: string) =>
  postgres(db.requestUrl, { max: 2, onnotice: () => {}, connection: { application_name: name } });
const appName = (sql?: postgres.Sql): EngineRequest => ({
  method: 'GET',
  path: '/rpc/app_name',
  search: '',
  headers: {},
  claims: { role: 'service_role' },
  sql,
});

beforeAll(async () => {
  db = await createTestDatabase(FIXTURE);
  await db.sql.unsafe(`
    create function app_name() returns text language sql stable as $$ select current_setting('application_name') $$;
    grant execute on function app_name() to service_role`);
  main = pool('main-pool');
  other = pool('other-pool');
  listener = pool('listener');
  engine = await createRestEngine({ sql: main, listenSql: listener, schemas: ['public'] });
});

afterAll(async () => {
  await engine?.close();
  await Promise.all([main?.end(), other?.end(), listener?.end()]);
  await db?.drop();
});

describe('the pool of a request', () => {
  it('runs a request on the pool it names, and on the engine pool otherwise', async () => {
    expect(await engine.handle(appName(other))).toMatchObject({ status: 200, body: '"other-pool"' });
    expect(await engine.handle(appName())).toMatchObject({ status: 200, body: '"main-pool"' });
    expect(await engine.handle(appName(main))).toMatchObject({ status: 200, body: '"main-pool"' });
  });

  it('listens for schema reloads on the listenSql client', async () => {
    const rows = await db.sql`select 1 from pg_stat_activity
      where datname = ${db.name} and application_name = 'listener' and query ilike 'listen%'`;
    expect(rows.length).toBe(1);
    await db.sql.unsafe(`
      create table reload_probe (id int primary key);
      grant select on reload_probe to service_role;
      notify pgrst, 'reload schema'`);
    const req: EngineRequest = {
      method: 'GET',
      path: '/reload_probe',
      search: '',
      headers: {},
      claims: { role: 'service_role' },
    };
    const deadline = Date.now() + 10_000;
    let status = (await engine.handle(req)).status;
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await engine.handle(req)).status;
    }
    expect(status).toBe(200);
  });
});
