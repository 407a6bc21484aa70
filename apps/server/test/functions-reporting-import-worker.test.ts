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
