import { describe, expect, it } from 'vitest';
import type { PlannedColumn } from './column-plan.js';
import { type CopyBatch, CsvToCopy } from './csv-to-copy.js';
import type { RowError } from './csv-worker-protocol.js';
import type { ImportOptions } from './import-options.js';

interface Converted {
  columns: PlannedColumn[];
  copy: Buffer;
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
  const result: Converted = { columns: [], copy: Buffer.alloc(0), batches: [], errors: [], rowsRead: 0, failed: 0 };
  const conversion = new CsvToCopy(
    { delimiter, options: { ...OPTIONS, ...options } },
    {
      planned: async (columns) => {
        result.columns = columns;
      },
      batch: async ({ data, ...batch }) => {
        result.copy = Buffer.concat([result.copy, data]);
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

function asHex({ copy, ...rest }: Converted) {
  return { ...rest, copy: copy.toString('hex') };
}

/** The byte path must agree with papaparse and the string conversion exactly: bytes, errors, counts, batches. */
async function expectSamePaths(bytes: Buffer, options: Partial<ImportOptions> = {}, delimiter = ',') {
  const expected = await convert(bytes, bytes.length + 1, false, options, delimiter);
  for (const size of [1, 3, 17, 256, 4096, bytes.length + 1]) {
    const actual = await convert(bytes, size, true, options, delimiter);
    // The COPY bytes compared as hex: toEqual walks a Buffer byte by byte (about half a second per 100 kB).
    expect(asHex(actual), `pieces of ${size} bytes`).toEqual(asHex(expected));
  }
  return expected;
}

/**
 * The binary COPY rows back as text, one string a row ("|" between fields): what Postgres stores, decoded the way its
 * binary output would be (numeric with its display scale, timestamps in UTC to the microsecond).
 */
function decodeRows(data: Buffer, columns: PlannedColumn[]): string[] {
  const rows: string[] = [];
  let at = 0;
  while (at < data.length) {
    const count = data.readInt16BE(at);
    at += 2;
    expect(count).toBe(columns.length);
    const fields: string[] = [];
    for (const column of columns) {
      const length = data.readInt32BE(at);
      at += 4;
      if (length === -1) {
        fields.push('null');
        continue;
      }
      fields.push(decodeValue(column.type, data.subarray(at, at + length)));
      at += length;
    }
    rows.push(fields.join('|'));
  }
  return rows;
}

const EPOCH_2000_MS = Date.UTC(2000, 0, 1);

function decodeValue(type: PlannedColumn['type'], v: Buffer): string {
  switch (type) {
    case 'text':
      return v.toString('utf8');
    case 'boolean':
      return String(v[0] === 1);
    case 'integer':
      return String(v.readBigInt64BE(0));
    case 'date':
      return new Date(EPOCH_2000_MS + v.readInt32BE(0) * 86_400_000).toISOString().slice(0, 10);
    case 'timestamp': {
      const micros = v.readBigInt64BE(0);
      const ms = Number(micros / 1000n);
      const rest = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
      return `${new Date(EPOCH_2000_MS + ms).toISOString().slice(0, 19)}.${String(rest).padStart(6, '0')}Z`;
    }
    default:
      return numericText(v);
  }
}

/** A numeric's binary form as numeric_out prints it. */
function numericText(v: Buffer): string {
  const count = v.readInt16BE(0);
  const weight = v.readInt16BE(2);
  const negative = v.readUInt16BE(4) === 0x4000;
  const scale = v.readInt16BE(6);
  let digits = 0n;
  for (let i = 0; i < count; i++) digits = digits * 10000n + BigInt(v.readInt16BE(8 + 2 * i));
  // digits x 10^exponent, printed with `scale` digits after the point.
  const exponent = 4 * (weight - count + 1) + scale;
  const scaled = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / 10n ** BigInt(-exponent);
  const text = scaled.toString().padStart(scale + 1, '0');
  const number = scale > 0 ? `${text.slice(0, -scale)}.${text.slice(-scale)}` : text;
  return negative && scaled !== 0n ? `-${number}` : number;
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
      `1,${'9'.repeat(1200)}.5,true,2024-01-01,2024-03-01T10:00Z,a number the byte path leaves to the exact one`,
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
    const loaded = decodeRows(converted.copy, converted.columns);
    expect(loaded.length).toBe(converted.rowsRead - converted.failed);
    expect(loaded.slice(2000, 2006)).toEqual([
      '7|-1500|true|2024-02-29|2024-03-01T10:00:00.000000Z|plain',
      '0|0.5|true|2000-12-31|2024-03-01T10:00:59.123456Z|quoted',
      '12|3|false|2024-01-01|2024-03-01T18:29:59.000000Z|with, comma',
      '1|2|false|2024-01-01|2024-03-01T08:00:00.000000Z|a "quote" inside',
      '1|2|true|2024-01-01|2024-02-29T23:00:00.500000Z|back\\slash',
      '1|2|false|2024-01-01|2024-03-01T00:00:00.000000Z|two\nlines',
    ]);
    expect(loaded.slice(2006, 2009)).toEqual(Array(3).fill('null|null|null|null|null|null'));
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
