// The COPY text reader of the archive check: fields and rows as PostgreSQL reads them (tabs, `\N`, escapes, rows
// across pieces), and a refusal for text PostgreSQL might read otherwise. No database.
import { describe, expect, it } from 'vitest';
import { CopyTextRows, decodeField } from '../src/copy-text.js';

const rowsOf = (width: number, wanted: number[], pieces: string[]) => {
  const rows: (string | null | undefined)[][] = [];
  const reader = new CopyTextRows(width, wanted, (fields) => rows.push([...fields]));
  for (const p of pieces) reader.push(Buffer.from(p, 'latin1'));
  reader.end();
  return { rows, count: reader.rows };
};

describe('decodeField', () => {
  it('reads \\N as null and resolves escapes as PostgreSQL does', () => {
    expect(decodeField(Buffer.from('\\N'))).toBeNull();
    expect(decodeField(Buffer.from('\\\\N'))).toBe('\\N');
    expect(decodeField(Buffer.from('a\\tb\\nc\\\\d'))).toBe('a\tb\nc\\d');
    expect(decodeField(Buffer.from('\\b\\f\\r\\v'))).toBe('\b\f\r\v');
    expect(decodeField(Buffer.from('\\101\\60\\0601'))).toBe('A001');
    expect(decodeField(Buffer.from('\\x41\\x4a2\\xg'))).toBe('AJ2xg');
    expect(decodeField(Buffer.from('\\q'))).toBe('q');
    expect(decodeField(Buffer.from(''))).toBe('');
    expect(decodeField(Buffer.from('caf\\303\\251'))).toBe('café');
  });
});

describe('CopyTextRows', () => {
  it('keeps the wanted fields of each row, in the order asked, across pieces', () => {
    const { rows, count } = rowsOf(3, [2, 0], ['a1\tb1\\', '\tx\tc1\n', 'a2\t\\N\t', '\\N\n']);
    expect(count).toBe(2);
    expect(rows).toEqual([
      ['c1', 'a1'],
      [null, 'a2'],
    ]);
  });

  it('takes an escaped tab as data, not as a delimiter', () => {
    expect(rowsOf(2, [0, 1], ['a\\\tb\tc\n']).rows).toEqual([['a\tb', 'c']]);
  });

  it('keeps an overlong field as undefined', () => {
    expect(rowsOf(1, [0], [`${'x'.repeat(70_000)}\n`]).rows).toEqual([[undefined]]);
  });

  it.each([
    ['too few fields', ['a\n'], /has 1 fields, not 2/],
    ['too many fields', ['a\tb\tc\n'], /more than 2 fields/],
    ['a raw NUL', ['a\0\tb\n'], /NUL/],
    ['a raw carriage return', ['a\tb\r\n'], /carriage return/],
    ['an escaped line break', ['a\tb\\\nc\n'], /escaped line break/],
    ['the end-of-data marker', ['a\tb\n', '\\.\n'], /end-of-data/],
    ['the marker inside a row', ['a\tb\\.\n'], /end-of-data/],
    ['an unfinished row', ['a\tb\n', 'c\t'], /ends inside row 2/],
  ])('refuses %s', (_what, pieces, message) => {
    expect(() => rowsOf(2, [0], pieces)).toThrow(message);
  });
});
