import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CsvRecords } from './csv-records.js';

/** The records of `bytes` fed in pieces of `size` bytes, every block read by papaparse. */
function recordsOf(bytes: Buffer, size: number, delimiter = ','): string[][] {
  const records = new CsvRecords(delimiter);
  const out: string[][] = [];
  const push = (chunk: Uint8Array, final: boolean) => {
    const block = records.block(chunk, final);
    if (block) out.push(...records.parse(block, 0, final));
  };
  for (let at = 0; at < bytes.length; at += size) push(bytes.subarray(at, at + size), false);
  push(new Uint8Array(0), true);
  return out;
}

/** papaparse over the whole text at once: what any chunking must agree with. */
const whole = (text: string, delimiter = ',') =>
  Papa.parse<string[]>(text, { delimiter, skipEmptyLines: true }).data as string[][];

const SAMPLE = [
  'make,note,price',
  'Ford,"quoted, with a comma",100',
  'Kia,"two\nlines",250',
  '',
  'Saab,"a ""quote"" inside",',
  'Škoda,ünïcödé ✓ 🚗,7',
  'Volvo,last line without a break,1',
].join('\r\n');

describe('CsvRecords', () => {
  it('gives the records papaparse gives for the whole text, whatever the chunk size', () => {
    const bytes = Buffer.from(SAMPLE);
    const expected = whole(SAMPLE);
    expect(expected).toHaveLength(6);
    expect(expected[4]).toEqual(['Škoda', 'ünïcödé ✓ 🚗', '7']);
    // Sizes of 1 to 7 bytes split every multi-byte character, every CRLF and every quoted line break somewhere.
    for (const size of [1, 2, 3, 5, 7, 16, 64, bytes.length])
      expect(recordsOf(bytes, size), `size ${size}`).toEqual(expected);
  });

  it('skips empty lines, keeps LF and CR line ends, and another delimiter', () => {
    expect(recordsOf(Buffer.from('a;b\n\n1;2\n'), 3, ';')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(recordsOf(Buffer.from('a,b\r1,2\r'), 2)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('completes a long line only when it ends, and an unterminated quote at the end of the input', () => {
    const records = new CsvRecords(',');
    const push = (text: string, final = false) => {
      const block = records.block(Buffer.from(text), final);
      return block ? records.parse(block, 0, final) : [];
    };
    expect(push('id,note\n1,')).toEqual([['id', 'note']]);
    for (let i = 0; i < 100; i++) expect(records.block(Buffer.from('y'.repeat(1000)), false)).toBeUndefined();
    expect(push('\n2,"open')).toEqual([['1', 'y'.repeat(100_000)]]);
    expect(push(' quote\n3,x', true)).toEqual(whole('2,"open quote\n3,x'));
  });

  it('has nothing for an empty input', () => {
    expect(recordsOf(Buffer.alloc(0), 4)).toEqual([]);
  });
});
