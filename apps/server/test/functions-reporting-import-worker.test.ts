// import-csv's parse worker end to end, through a real server: malformed CSV keeps exact counts and errors,
// multi-byte characters survive chunk boundaries, and one line of many megabytes loads whole. (Uploads cut off
// mid-way: fault-injection.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrangeAuction, startNotifyHarness, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';
import { readSse, type SseEvent } from './functions-reporting.fixture.js';

const MB = 1024 * 1024;
let h: NotifyHarness;
let owner: TestUser;
let auctionId: string;

beforeAll(async () => {
  h = await startNotifyHarness({
    IMPORT_MAX_BYTES: String(24 * MB),
    FUNCTION_RATE_LIMITS: 'import-csv=1000/hour',
  });
  owner = await h.signUp('worker-owner', 'Wanda Owner');
  auctionId = await arrangeAuction(h.db, owner, []);
});
afterAll(async () => {
  await h?.close();
});

async function importForm(options: Record<string, unknown>, text: string): Promise<SseEvent[]> {
  const form = new FormData();
  form.append('options', JSON.stringify({ auction_id: auctionId, ...options }));
  form.append('file', new Blob([text], { type: 'text/csv' }), 'lots.csv');
  const { data, error } = await owner.client.functions.invoke('import-csv', { body: form });
  if (error) throw error;
  return readSse((data as Response).body);
}

const last = (events: SseEvent[]) => events[events.length - 1];
const rowsOf = (table: string) => h.db.sql.unsafe(`select * from reporting_data."${table}" order by 1`);
async function tableOf(datasetId: string): Promise<string> {
  const [d] = await h.db.sql<{ table_name: string }[]>`select table_name from public.datasets where id = ${datasetId}`;
  return d.table_name;
}

describe('import-csv parse worker', () => {
  it('counts and lists every malformed row exactly: wrong field counts, bad values, an unterminated quote', async () => {
    const lines = ['lot,price,note'];
    for (let i = 1; i <= 3000; i++) {
      if (i % 500 === 0)
        lines.push(`${i},1`); // one field short
      // Past the 2000 rows the types are detected from, so price stays numeric.
      else if (i % 700 === 0 && i > 2000) lines.push(`${i},not a number,x`);
      else lines.push(`${i},${i}.5,"note, ${i}"`);
    }
    // The last record opens a quote it never closes: the rest of the file is its one field, a wrong field count.
    lines.push('3001,"never closed');
    const events = await importForm({ name: 'malformed', batch_size: 1000 }, `${lines.join('\n')}\n`);
    const short = [500, 1000, 1500, 2000, 2500, 3000];
    const bad = [2100, 2800];
    const errors = events.filter((e) => e.event === 'row_errors').flatMap((e) => e.data.errors as { row: number }[]);
    expect(errors.map((e) => e.row).sort((a, b) => a - b)).toEqual([...short, ...bad, 3001].sort((a, b) => a - b));
    expect(errors.find((e) => e.row === 2100)).toEqual({
      row: 2100,
      column: 'price',
      value: 'not a number',
      message: expect.stringContaining('not a number'),
    });
    expect(errors.find((e) => e.row === 3001)).toMatchObject({
      column: null,
      message: 'has 2 fields, the header has 3',
    });
    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress.at(-1)).toMatchObject({ rows_read: 3001, rows_imported: 2992, rows_failed: 9 });
    expect(last(events)).toMatchObject({ event: 'complete', data: { row_count: 2992, rows_failed: 9 } });
  });

  it('stores each value as Postgres reads its text, by both paths: numbers, dates and timestamps at their edges', async () => {
    const values: Record<string, string[]> = {
      n: [
        '0',
        '-0',
        '-0.0',
        '1.50',
        '.5',
        '3.',
        '+3.25',
        '-1.5e3',
        '1.5E-3',
        '.5e-3',
        '00012.3400',
        '1e10',
        '5e-7',
      ].concat(['123456789012345678901234567890.123456789', '9999.9999', '10000', '0.0001', '-12345.6789e2', '1e-20']),
      i: ['0', '-0', '+7', ' 12 ', '123456789012345678', '-123456789012345678', '999999999999999', '-1'],
      d: ['2024-02-29', '0001-01-01', '9999-12-31', '2000-01-01', '1999-12-31', '1600-03-01', '2000-02-29', '2/3/2024'],
      ts: ['2024-03-01T10:00:00Z', '2024-03-01 10:00', '2024-03-01t10:00:59.123456z', '2024-03-01T23:59:59+05:30']
        .concat(['2024-03-01T00:00-0800', '2024-03-01T00:00:00.5+01', '0001-01-01T00:00:00Z', '2000-01-01T00:00-00:01'])
        .concat(['9999-12-31T23:59:59.999999Z', '1700-06-15T12:34:56.000001-03', '2300-01-01T00:00:00+15:59']),
      t: [' padded ', 'a "quote", comma', 'back\\slash', 'ünï ✓', '\ttab', 'two\nlines'],
    };
    const names = Object.keys(values);
    const edges = Math.max(...Object.values(values).map((v) => v.length));
    const cell = (v: string) => `"${v.replaceAll('"', '""')}"`;
    const edgeRows = (first: number) =>
      Array.from({ length: edges }, (_, j) => [first + j, ...names.map((c) => cell(values[c][j] ?? ''))].join(','));
    const lines = [`k,${names.join(',')}`, ...edgeRows(1)];
    // Past the 2,000 sampled rows, the byte path converts the same values again.
    for (let k = 100; k < 2100; k++) lines.push(`${k},1.5,1,2024-01-01,2024-01-01T00:00Z,x`);
    lines.push(...edgeRows(3001));
    // An offset Postgres refuses: a row error, where the text COPY failed the whole import.
    lines.push('4000,1,1,2024-01-01,2024-03-01T10:00+16,x', '4001,1,1,2024-01-01,2024-03-01T10:00:00+15:60,x');
    // More digits before the point than numeric holds (131,072): a row error, not a number cut short.
    const huge = `1${'0'.repeat(140_000)}`;
    lines.push(`4002,${huge},1,2024-01-01,2024-03-01T10:00Z,x`);
    const mapping = [
      ['k', 'integer'],
      ['n', 'numeric'],
      ['i', 'integer'],
      ['d', 'date'],
      ['ts', 'timestamp'],
      ['t', 'text'],
    ];
    const events = await importForm(
      { name: 'edges', column_mapping: mapping.map(([source, type]) => ({ source, target: source, type })) },
      `${lines.join('\n')}\n`,
    );
    expect(last(events)).toMatchObject({ event: 'complete', data: { row_count: 2000 + 2 * edges, rows_failed: 3 } });
    const errors = events.filter((e) => e.event === 'row_errors').flatMap((e) => e.data.errors);
    expect(errors).toEqual([
      {
        row: 2000 + 2 * edges + 1,
        column: 'ts',
        value: '2024-03-01T10:00+16',
        message: '"2024-03-01T10:00+16" has a time zone offset out of range',
      },
      {
        row: 2000 + 2 * edges + 2,
        column: 'ts',
        value: '2024-03-01T10:00:00+15:60',
        message: '"2024-03-01T10:00:00+15:60" has a time zone offset out of range',
      },
      {
        row: 2000 + 2 * edges + 3,
        column: 'n',
        value: huge,
        message: `"${huge}" is out of the range of a number`,
      },
    ]);
    const table = await tableOf(last(events).data.dataset_id as string);
    const stored = await h.db.sql.begin(async (tx) => {
      await tx`set local timezone = 'UTC'`;
      return tx.unsafe(
        `select k, n::text, i::text, d::text, ts::text, t from reporting_data."${table}"
         where k < 100 or k > 3000 order by k`,
      );
    });
    // What Postgres' own input functions make of each raw value (the dates in M/D/Y are the import's own reading).
    const types: Record<string, string> = { n: 'numeric', i: 'bigint', d: 'date', ts: 'timestamptz', t: 'text' };
    const expected: Record<string, string | null>[] = [];
    await h.db.sql.begin(async (tx) => {
      await tx`set local timezone = 'UTC'`;
      await tx`set local datestyle = 'ISO, MDY'`;
      for (let j = 0; j < edges; j++) {
        const row: Record<string, string | null> = {};
        for (const c of names) {
          const raw = values[c][j] ?? '';
          const blank = raw.trim() === '';
          row[c] = blank ? null : (await tx.unsafe(`select $1::text::${types[c]}::text as v`, [raw]))[0].v;
        }
        expected.push(row);
      }
    });
    expect(stored.map(({ k, ...row }) => row)).toEqual([...expected, ...expected]);
    expect(stored.map((r) => r.k)).toEqual([...edgeRows(1), ...edgeRows(3001)].map((r) => r.split(',')[0]));
  });

  it('keeps multi-byte characters whole across chunk boundaries', async () => {
    // About 3 MB of two-, three- and four-byte characters: the upload reaches the worker in many chunks, and some
    // boundary falls inside a character.
    const text = 'Škoda ünïcödé ✓ 🚗 ';
    const lines = ['lot,note'];
    for (let i = 1; i <= 60_000; i++) lines.push(`${i},${text}${i}`);
    const events = await importForm({ name: 'unicode' }, `${lines.join('\n')}\n`);
    expect(last(events)).toMatchObject({ event: 'complete', data: { row_count: 60_000, rows_failed: 0 } });
    const table = await tableOf(last(events).data.dataset_id as string);
    const [{ wrong }] = await h.db.sql.unsafe(
      `select count(*)::int as wrong from reporting_data."${table}" where note <> $1 || lot`,
      [text],
    );
    expect(wrong).toBe(0);
  });

  it('loads one line of 20 MB whole', async () => {
    const note = 'y'.repeat(20 * MB);
    const events = await importForm({ name: 'long line' }, `lot,note\r\n1,${note}\r\n2,short\r\n`);
    expect(last(events)).toMatchObject({ event: 'complete', data: { row_count: 2 } });
    const rows = await rowsOf(await tableOf(last(events).data.dataset_id as string));
    expect(rows.map((r) => [r.lot, (r.note as string).length])).toEqual([
      ['1', note.length],
      ['2', 5],
    ]);
  });
});
