import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentLocation } from './content-location.js';

/**
 * The definition, byte by byte (PostgREST's): each part decoded to bytes (`+` a space, `%XX` the byte, a stray `%`
 * itself), parameters sorted by their names' bytes (stably), every byte but A-Z a-z 0-9 - _ . ~ written as %XX; the
 * name with its bytes outside printable ASCII, and `%`, as %XX.
 */
function byTheBytes(name: string, search: string): string {
  const hex = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  const decode = (text: string) => {
    const raw = Buffer.from(text.replaceAll('+', ' '), 'utf8');
    const out: number[] = [];
    for (let i = 0; i < raw.length; i++) {
      const pair = raw.subarray(i + 1, i + 3).toString('latin1');
      if (raw[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(pair)) {
        out.push(Number.parseInt(pair, 16));
        i += 2;
      } else out.push(raw[i]!);
    }
    return Buffer.from(out);
  };
  const encode = (bytes: Buffer) =>
    [...bytes].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : hex(b))).join('');
  const params = search
    .split(/[&;]/)
    .filter((p) => p !== '')
    .map((p) => (p.includes('=') ? [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] : [p, '']).map(decode));
  params.sort((a, b) => Buffer.compare(a[0]!, b[0]!));
  const path = [...Buffer.from(name, 'utf8')]
    .map((b) => (b > 0x20 && b < 0x7f && b !== 0x25 ? String.fromCharCode(b) : hex(b)))
    .join('');
  const query = params.map(([k, v]) => `${encode(k!)}=${encode(v!)}`).join('&');
  return `/${path}${query ? `?${query}` : ''}`;
}

describe('contentLocation', () => {
  it('sorts the parameters by name, keeps the order of one name’s values, and encodes them again', () => {
    expect(contentLocation('gauges', 'select=id&order=id&id=eq.1')).toBe('/gauges?id=eq.1&order=id&select=id');
    expect(contentLocation('gauges', 'b=2&a=1&b=1')).toBe('/gauges?a=1&b=2&b=1');
    expect(contentLocation('gauges', 'level=in.(1,+5)&select=id')).toBe('/gauges?level=in.%281%2C%205%29&select=id');
    expect(contentLocation('gauges', '')).toBe('/gauges');
    expect(contentLocation('موارد', 'a=%D9%85')).toBe('/%D9%85%D9%88%D8%A7%D8%B1%D8%AF?a=%D9%85');
  });

  it('gives what the byte-by-byte definition gives, for any name and query string', () => {
    const piece = fc.oneof(
      fc.constantFrom('id', 'eq.1', 'select', '*', '(', ')', ',', '%', '%2', '%41', '%e2%82', '+', '=', '&', ';', '~'),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.string({ unit: 'binary', maxLength: 3 }),
    );
    const text = fc.array(piece, { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, text, (name, search) => {
        expect(contentLocation(name, search)).toBe(byTheBytes(name, search));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts long query strings, with repeated names, by the definition too', () => {
    const param = fc.tuple(fc.constantFrom('a', 'b', 'ab', 'B', 'é', 'a%20'), fc.nat(9)).map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(fc.array(param, { minLength: 10, maxLength: 40 }), (params) => {
        const search = params.join('&');
        expect(contentLocation('t', search)).toBe(byTheBytes('t', search));
      }),
      { numRuns: 500 },
    );
  });
});
