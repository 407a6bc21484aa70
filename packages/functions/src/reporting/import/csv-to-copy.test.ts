import { describe, expect, it } from 'vitest';
import type { PlannedColumn } from './column-plan.js';
import { type CopyBatch, CsvToCopy } from './csv-to-copy.js';
import type { RowError } from './csv-worker-protocol.js';
import type { ImportOptions } from './import-options.js';

interface Converted {
  columns: PlannedColumn[];
  copy: string;
  batches: Omit<CopyBatch, 'data'>[];
  errors: RowError[];
  rowsRead: number;
  failed: number;
}

const OPTIONS: ImportOptions = {
  auctionId: '00000000-0000-0000-0000-000000000000',
  name: 't',
  mode: 'create',
  hasHeader: true,
  calculatedFields: [],
  dateOrder: 'auto',
  batchSize: 7,
};

/** The whole conversion of `bytes` fed in pieces of `size`, by the byte path or by papaparse alone. */
async function convert(
  bytes: Uint8Array,
  size: number,
  bytePath: boolean,
  options: Partial<ImportOptions> = {},
  delimiter = ',',
): Promise<Converted> {
  const result: Converted = { columns: [], copy: '', batches: [], errors: [], rowsRead: 0, failed: 0 };
  const decoder = new TextDecoder();
  const conversion = new CsvToCopy(
    { delimiter, options: { ...OPTIONS, ...options } },
    {
      planned: async (columns) => {
        result.columns = columns;
      },
      batch: async ({ data, ...batch }) => {
        result.copy += decoder.decode(data);
        result.batches.push(batch);
        result.errors.push(...batch.errors);
      },
    },
    bytePath,
  );
  for (let at = 0; at < bytes.length; at += size) await conversion.push(bytes.subarray(at, at + size), false);
  await conversion.push(new Uint8Array(0), true);
  return { ...result, rowsRead: conversion.rowsRead, failed: conversion.failed };
}

/** A file whose sample (the first 2,000 rows) fixes the types, then the rows under test. */
function file(header: string, sampleRow: (i: number) => string, rows: string[], newline = '\n'): Buffer {
  const lines = [header];
  for (let i = 0; i < 2000; i++) lines.push(sampleRow(i));
  return Buffer.from([...lines, ...rows].join(newline));
}

/** The byte path must agree with papaparse and the string conversion exactly: bytes, errors, counts, batches. */
async function expectSamePaths(bytes: Buffer, options: Partial<ImportOptions> = {}, delimiter = ',') {
  const expected = await convert(bytes, bytes.length + 1, false, options, delimiter);
  for (const size of [1, 3, 17, 256, 4096, bytes.length + 1]) {
    const actual = await convert(bytes, size, true, options, delimiter);
    expect(actual, `pieces of ${size} bytes`).toEqual(expected);
  }
  return expected;
}

const TYPED = 'lot,price,sold,made,at,note';
const typedRow = (i: number) =>
  `${i},${i}.5,${i % 2 ? 'true' : 'no'},2024-01-0${(i % 9) + 1},2024-03-01T10:00:00Z,n ${i}`;

describe('CsvToCopy: the byte path against papaparse and the string conversion', () => {
  it('agrees on every kind of value, good and bad', async () => {
    const rows = [
      // Values the byte path writes itself.
      '+7,-1.5e3,TRUE,2024-02-29,2024-03-01 10:00,plain',
      '-0,.5,Y,2000-12-31,2024-03-01t10:00:59.123456z,"quoted"',
      ' 12 ,+3.,f,2024-01-01,2024-03-01T23:59:59+05:30,"with, comma"',
      '1,2,n,2024-01-01,2024-03-01T00:00-0800,"a ""quote"" inside"',
      '1,2,yes,2024-01-01,2024-03-01T00:00:00.5+01,back\\slash',
      '1,2,false,2024-01-01,2024-03-01T00:00:00Z,"two\nlines"',
      // Empty and blank cells, null in every column; a blank text cell too.
      ',,,,,',
      '  ,\t, , , ,   ',
      '"",""," ","","",""',
      // Values only the string conversion knows, and values that do not fit.
      '1,2,true,01/02/2024,2024-03-01,ünïcödé ✓ 🚗',
      '1,2,true,2024/2/3,3/4/2024 7:05 PM,\u00a0',
      '1234567890123456789,2,true,2024-01-01,2024-03-01T10:00Z,x',
      '1,1e1234,true,2024-01-01,2024-03-01T10:00Z,x',
      '1,2,maybe,2024-01-01,2024-03-01T10:00Z,x',
      '1,2,true,2024-02-30,2024-03-01T10:00Z,x',
      '1,2,true,2024-01-01,2024-03-01T24:00Z,x',
      '1,2,true,2024-01-01,2024-03-01T10:00+05:,x',
      '1,2,true,2024-01-01,2024-03-01T10:00Z,nul \u0000 inside',
      '1,2,true,2024-01-01,2024-03-01T10:00Z,x,one too many',
      '1,2,true',
      '1.5,2,true,2024-01-01,2024-03-01T10:00Z,x',
      '１,2,true,2024-01-01,2024-03-01T10:00Z,full-width digit',
      '\u00a01\u00a0,2,true,2024-01-01,2024-03-01T10:00Z,no-break spaces around',
      '',
      'last,row,without,a,line,break',
    ];
    const converted = await expectSamePaths(file(TYPED, typedRow, rows));
    expect(converted.columns.map((c) => c.type)).toEqual([
      'integer',
      'numeric',
      'boolean',
      'date',
      'timestamp',
      'text',
    ]);
    expect(converted.rowsRead).toBe(2000 + rows.length - 1);
    expect(converted.failed).toBeGreaterThanOrEqual(9);
    expect(converted.copy).toContain('\n7,-1.5e3,true,2024-02-29,2024-03-01 10:00+00,plain\n');
    expect(converted.copy).toContain('\n1,2,false,2024-01-01,2024-03-01T00:00-0800,"a ""quote"" inside"\n');
    expect(converted.copy).toContain('\n,,,,,\n,,,,,\n,,,,,\n');
  });

  it('agrees on CRLF and CR line ends, other delimiters, and quotes papaparse reads its own way', async () => {
    for (const newline of ['\r\n', '\r'])
      await expectSamePaths(file(TYPED, typedRow, ['1,2,t,2024-01-01,,"a\r\nb"', '3,4,f,,,x'], newline));
    const semicolons = (i: number) => typedRow(i).replaceAll(',', ';');
    await expectSamePaths(file(TYPED.replaceAll(',', ';'), semicolons, ['1;2;t;;;a,b', '1;2;t;;;"x;y"']), {}, ';');
    // A quote closed by spaces, a quote inside a field, a quote never closed: papaparse decides each.
    await expectSamePaths(
      file(TYPED, typedRow, ['1,2,t,,,"spaced"  ', '1,2,t,,,mid"quote', '1,2,t,,,"closed"late,x', '1,2,t,,,"never']),
    );
  });

  it('agrees on invalid UTF-8 and with calculated date parts and a column mapping', async () => {
    const invalid = Buffer.concat([
      file(TYPED, typedRow, ['1,2,t,,,bad ']),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from('2,3,f,,,ok\n'),
    ]);
    await expectSamePaths(invalid);
    await expectSamePaths(file(TYPED, typedRow, ['1,2,t,2024-05-06,2024-03-01T10:00Z,x']), {
      calculatedFields: [{ name: 'made_month', source: 'made', part: 'month' }],
      columnMapping: [{ source: 'note', skip: true }],
    });
  });

  it('sends a batch every batch_size rows read, with the errors of its rows', async () => {
    const converted = await convert(file(TYPED, typedRow, ['1,x,t,,,a', '2,3,t,,,b', '3,4,t,,,c']), 100, true);
    expect(converted.batches.map((b) => b.rowsRead)).toEqual([
      ...Array.from({ length: 286 }, (_, i) => (i + 1) * 7),
      2003,
    ]);
    expect(converted.errors).toEqual([{ row: 2001, column: 'price', value: 'x', message: '"x" is not a number' }]);
    expect(converted.batches.at(-2)).toMatchObject({ rows: 6, rowsRead: 2002, failed: 1 });
    expect(converted.batches.at(-1)).toMatchObject({ rows: 1, rowsRead: 2003, failed: 1, errors: [] });
  });
});
