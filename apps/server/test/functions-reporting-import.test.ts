// import-csv end to end with supabase-js: a 20k-row CSV of mixed types with bad rows, sent as FormData and as
// JSON, progress read from the event stream, the dataset queried back with execute-query in JSON and CSV;
// append and replace; who may import; the size limit; the rules that refuse bad options.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callFunction,
  startNotifyHarness,
  type NotifyHarness,
  type TestUser,
  arrangeAuction,
} from './functions-notify.fixture.js';
import { awaitWindowRoom } from './support/rate-windows.js';
import { generateCsv, readSse, type SseEvent } from './functions-reporting.fixture.js';

let h: NotifyHarness;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let auctionId: string;

beforeAll(async () => {
  h = await startNotifyHarness({ IMPORT_MAX_BYTES: String(2 * 1024 * 1024) });
  owner = await h.signUp('import-owner', 'Ida Owner');
  member = await h.signUp('import-member', 'Tom Member');
  outsider = await h.signUp('import-outsider', 'Olga Outsider');
  auctionId = await arrangeAuction(h.db, owner, [[member, 'team_member']]);
  await arrangeAuction(h.db, outsider, []);
});
afterAll(async () => {
  await h?.close();
});

const csv = generateCsv(20_000);

async function importForm(user: TestUser, options: Record<string, unknown>, text: string): Promise<SseEvent[]> {
  const form = new FormData();
  form.append('options', JSON.stringify(options));
  form.append('file', new Blob([text], { type: 'text/csv' }), 'lots.csv');
  const { data, error } = await user.client.functions.invoke('import-csv', { body: form });
  if (error) throw error;
  return readSse((data as Response).body);
}

let admins = 0;
/** import-csv allows 5 imports an hour per user: each import here is made by an admin of its own. */
async function freshAdmin(): Promise<TestUser> {
  admins++;
  const user = await h.signUp(`import-admin-${admins}`, `Admin ${admins}`);
  await h.db
    .sql`insert into public.auction_members (auction_id, user_id, role) values (${auctionId}, ${user.id}, 'admin')`;
  return user;
}

const byEvent = (events: SseEvent[], name: string) => events.filter((e) => e.event === name);

describe('import-csv', () => {
  let datasetId: string;

  it('imports a 20k-row CSV from FormData, streaming start, schema, progress, row errors and complete', async () => {
    const events = await importForm(await freshAdmin(), { auction_id: auctionId, name: 'Lots 2024' }, csv.text);
    expect(events[0].event).toBe('start');
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    datasetId = events[0].data.dataset_id as string;
    const schema = byEvent(events, 'schema')[0].data.columns as Array<Record<string, unknown>>;
    expect(schema.map((c) => [c.name, c.type])).toEqual([
      ['lot_number', 'integer'],
      ['price', 'numeric'],
      ['sold', 'boolean'],
      ['make', 'text'],
      ['sale_date', 'date'],
      ['pickup_date', 'date'],
      ['registered_at', 'timestamp'],
    ]);
    const progress = byEvent(events, 'progress');
    expect(progress).toHaveLength(20);
    expect(progress[19].data).toMatchObject({
      rows_read: 20_000,
      rows_imported: csv.good,
      rows_failed: csv.bad.length,
      batches: 20,
    });
    const errors = byEvent(events, 'row_errors').flatMap((e) => e.data.errors as Array<Record<string, unknown>>);
    expect(errors.map((e) => e.row)).toEqual(csv.bad);
    expect(errors.find((e) => e.column === 'price')).toMatchObject({ value: 'n/a', message: '"n/a" is not a number' });
    const complete = byEvent(events, 'complete')[0].data;
    expect(complete).toMatchObject({ dataset_id: datasetId, row_count: csv.good, rows_failed: csv.bad.length });
    const [row] = await h.db.sql`select status, row_count from public.datasets where id = ${datasetId}`;
    expect(row).toEqual({ status: 'ready', row_count: csv.good });
  });

  it('reads the values back as they were written: dates in both orders, quoted commas, empty cells', async () => {
    const { data, error } = await member.client.functions.invoke('execute-query', {
      body: {
        dataset_id: datasetId,
        sql: `select lot_number, price, sold, make, sale_date::text as sale_date, pickup_date::text as pickup_date
              from dataset where lot_number in (10, 12) order by lot_number`,
      },
    });
    expect(error).toBeNull();
    expect(data.rows).toEqual([
      {
        lot_number: 10,
        price: null,
        sold: false,
        make: 'Chevy "Classic"',
        sale_date: '2024-11-11',
        pickup_date: '2025-11-11',
      },
      {
        lot_number: 12,
        price: 12.25,
        sold: false,
        make: 'Ford, Inc',
        sale_date: '2024-01-13',
        pickup_date: '2025-01-13',
      },
    ]);
    const total = await member.client.functions.invoke('execute-query', {
      body: { dataset_id: datasetId, sql: 'select round(sum(price), 2) as total, count(*) as n from dataset' },
    });
    expect(total.data.rows).toEqual([{ total: Math.round(csv.priceTotal * 100) / 100, n: csv.good }]);
  });

  it('imports the same file from a JSON body, with a column mapping and calculated date parts', async () => {
    const res = await fetch(`${h.url}/functions/v1/import-csv`, {
      method: 'POST',
      headers: {
        apikey: h.server.ctx.anonKey,
        authorization: `Bearer ${(await freshAdmin()).token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        auction_id: auctionId,
        name: 'Mapped',
        batch_size: 5000,
        column_mapping: [
          { source: 'Lot Number', target: 'lot', type: 'text' },
          { source: 'Make', skip: true },
        ],
        calculated_fields: [
          { name: 'sale_year', source: 'sale_date', part: 'year' },
          { name: 'sale_quarter', source: 'Sale Date', part: 'quarter' },
          { name: 'registered_hour', source: 'registered_at', part: 'hour' },
        ],
        csv: csv.text,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = await readSse(res.body);
    const complete = byEvent(events, 'complete')[0].data;
    expect(byEvent(events, 'progress')).toHaveLength(4);
    expect((complete.columns as Array<{ name: string; type: string }>).map((c) => `${c.name}:${c.type}`)).toEqual([
      'lot:text',
      'price:numeric',
      'sold:boolean',
      'sale_date:date',
      'pickup_date:date',
      'registered_at:timestamp',
      'sale_year:integer',
      'sale_quarter:integer',
      'registered_hour:integer',
    ]);
    const q = await owner.client.functions.invoke('execute-query', {
      body: {
        dataset_id: complete.dataset_id,
        sql: "select sale_year, sale_quarter, registered_hour from dataset where lot = '13'",
      },
    });
    expect(q.data.rows).toEqual([{ sale_year: 2024, sale_quarter: 1, registered_hour: 10 }]);
  });

  it('appends rows and replaces them atomically, dropping cached results', async () => {
    const small = generateCsv(300);
    const count = async () =>
      await owner.client.functions.invoke('execute-query', {
        body: { dataset_id: datasetId, sql: 'select count(*) as n from dataset' },
      });
    expect((await count()).response?.headers.get('x-cache')).toBe('MISS');
    expect((await count()).response?.headers.get('x-cache')).toBe('HIT');
    const appended = await importForm(
      await freshAdmin(),
      { auction_id: auctionId, dataset_id: datasetId, mode: 'append' },
      small.text,
    );
    expect(byEvent(appended, 'complete')[0].data.row_count).toBe(csv.good + 300);
    const after = await count();
    expect(after.response?.headers.get('x-cache')).toBe('MISS');
    expect(after.data.rows).toEqual([{ n: csv.good + 300 }]);
    const replaced = await importForm(
      await freshAdmin(),
      { auction_id: auctionId, dataset_id: datasetId, mode: 'replace' },
      small.text,
    );
    expect(byEvent(replaced, 'complete')[0].data.row_count).toBe(300);
    expect((await count()).data.rows).toEqual([{ n: 300 }]);
    const tables = await h.db.sql`select count(*)::int as n from pg_tables where schemaname = 'reporting_data'
        and tablename like ${`ds_${datasetId.replaceAll('-', '')}%`}`;
    expect(tables[0].n).toBe(1);
  });

  it('refuses an append whose columns differ, leaving the dataset as it was', async () => {
    const events = await importForm(
      await freshAdmin(),
      { auction_id: auctionId, dataset_id: datasetId, mode: 'append' },
      'a,b\n1,2\n',
    );
    expect(events.map((e) => e.event)).toEqual(['start', 'error']);
    expect(events[1].data.code).toBe('VALIDATION_ERROR');
    const [row] = await h.db.sql`select status, row_count from public.datasets where id = ${datasetId}`;
    expect(row).toEqual({ status: 'ready', row_count: 300 });
  });

  it('detects ; tab and | delimiters, a BOM and LF line ends', async () => {
    for (const delimiter of [';', '\t', '|']) {
      const text = `\uFEFFname${delimiter}amount\nalpha${delimiter}1\n"be${delimiter}ta"${delimiter}2\n`;
      const events = await importForm(await freshAdmin(), { auction_id: auctionId, name: `delim ${delimiter}` }, text);
      const complete = byEvent(events, 'complete')[0].data;
      expect(complete.row_count).toBe(2);
      expect((complete.columns as Array<{ name: string }>).map((c) => c.name)).toEqual(['name', 'amount']);
    }
  });

  it('answers 413 VALIDATION_ERROR for a file over the limit, from Content-Length', async () => {
    const big = `x,y\n${'1,2\n'.repeat(600_000)}`;
    const r = await fetch(`${h.url}/functions/v1/import-csv`, {
      method: 'POST',
      headers: {
        apikey: h.server.ctx.anonKey,
        authorization: `Bearer ${(await freshAdmin()).token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ auction_id: auctionId, name: 'too big', csv: big }),
    });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({
      error: 'the file is larger than 2 MB',
      code: 'VALIDATION_ERROR',
      details: 'file',
    });
  });

  it('refuses a team member (403), another auction member (403), the anon key and an expired token (401)', async () => {
    const body = { auction_id: auctionId, name: 'nope', csv: 'a\n1\n' };
    const team = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', { bearer: member.token, body });
    expect([team.status, team.body.code]).toEqual([403, 'FORBIDDEN']);
    const other = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', { bearer: outsider.token, body });
    expect([other.status, other.body.code]).toEqual([403, 'FORBIDDEN']);
    const anon = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', { body });
    expect([anon.status, anon.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const expired = await new SignJWT({ sub: owner.id, role: 'authenticated', aud: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(h.server.ctx.jwtSecret));
    const e = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', { bearer: expired, body });
    expect([e.status, e.body.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it.each([
    [{ auction_id: undefined, name: 'x', csv: 'a\n1\n' }, 400, 'INVALID_REQUEST', 'auction_id'],
    [{ auction_id: 'not-a-uuid', name: 'x', csv: 'a\n1\n' }, 400, 'INVALID_REQUEST', 'auction_id'],
    [{ name: 'x' }, 400, 'INVALID_REQUEST', 'csv'],
    [{ name: 'x', csv: 'a\n', mode: 'merge' }, 400, 'VALIDATION_ERROR', 'mode'],
    [{ name: 'x', csv: 'a\n', batch_size: 50 }, 400, 'VALIDATION_ERROR', 'batch_size'],
    [{ name: 'x', csv: 'a\n', delimiter: ':' }, 400, 'VALIDATION_ERROR', 'delimiter'],
  ])('refuses bad options %j with %i %s', async (options, status, code, details) => {
    const body = { auction_id: auctionId, ...options };
    const r = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', {
      bearer: (await freshAdmin()).token,
      body,
    });
    expect([r.status, r.body.code, r.body.details]).toEqual([status, code, details]);
  });

  it('answers 404 for a dataset the caller cannot see', async () => {
    const r = await callFunction(h.url, h.server.ctx.anonKey, 'import-csv', {
      bearer: outsider.token,
      body: { auction_id: auctionId, dataset_id: datasetId, mode: 'append', csv: 'a\n1\n' },
    });
    expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('per-user limits', () => {
  it('allows execute-query 10 times a minute per user, then 429 naming the maximum', async () => {
    const user = await freshAdmin();
    await awaitWindowRoom(60_000);
    const body = { dataset_id: '00000000-0000-4000-8000-000000000000', sql: 'select 1' };
    for (let i = 0; i < 10; i++) {
      const r = await callFunction(h.url, h.server.ctx.anonKey, 'execute-query', { bearer: user.token, body });
      expect([r.status, r.headers.get('x-ratelimit-remaining')]).toEqual([404, String(9 - i)]);
    }
    const limited = await callFunction(h.url, h.server.ctx.anonKey, 'execute-query', { bearer: user.token, body });
    expect([limited.status, limited.body.code, limited.body.error]).toEqual([
      429,
      'RATE_LIMITED',
      'at most 10 requests per minute for execute-query',
    ]);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
