import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkObjectName, parseObjectTail } from './object-path.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the oracle names the control characters a key must not hold.
const CONTROL_OR_BACKSLASH = /[\\\u0000-\u001f]/;

const refused = (tail: string) =>
  expect(() => parseObjectTail(tail), tail).toThrow(expect.objectContaining({ status: 400 }));

describe('parseObjectTail', () => {
  it('splits bucket and name and decodes each segment', () => {
    expect(parseObjectTail('lot-images/u1/170_ab.png')).toEqual({ bucket: 'lot-images', name: 'u1/170_ab.png' });
    expect(parseObjectTail('lot-images/u1/a%20b%C3%A9.png')).toEqual({ bucket: 'lot-images', name: 'u1/a bé.png' });
    expect(parseObjectTail('lot-images')).toEqual({ bucket: 'lot-images', name: '' });
    expect(parseObjectTail('lot-images/')).toEqual({ bucket: 'lot-images', name: '' });
  });

  it('refuses traversal, encoded separators, absolute paths, NUL and over-long names', () => {
    for (const tail of [
      'lot-images/u1/../u2/x.png',
      'lot-images/../x',
      'lot-images/./x',
      'lot-images/u1%2F..%2Fx',
      'lot-images/u1%2fx',
      'lot-images/u1%5Cx',
      'lot-images/u1\\x',
      '/lot-images/x',
      'lot-images//x',
      'lot-images/x%00.png',
      'lot-images/x\u0000',
      'lot-images/%E0%A4%A',
      `lot-images/${'a'.repeat(1025)}`,
      `lot-images/${'é'.repeat(513)}`,
      'Lot_Images/x',
      '../x',
      '%2E%2E/x',
      'lot-images/%2E%2E/x',
    ])
      refused(tail);
    expect(parseObjectTail(`lot-images/${'a'.repeat(1024)}`).name).toHaveLength(1024);
  });

  it('never yields a name with a dot segment, an empty segment, a backslash or a control character (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), (tail) => {
        let name: string;
        try {
          name = parseObjectTail(`lot-images/${tail}`).name;
        } catch {
          return true;
        }
        if (name === '') return true;
        const segments = name.split('/');
        return segments.every((s) => s !== '' && s !== '.' && s !== '..') && !CONTROL_OR_BACKSLASH.test(name);
      }),
    );
  });
});

describe('checkObjectName', () => {
  it('applies the same rules to names from JSON bodies', () => {
    expect(checkObjectName('u1/x.png')).toBe('u1/x.png');
    for (const bad of ['', '/u1/x', 'u1/../x', 'u1//x', 'x\u0000', 'a\\b']) {
      expect(() => checkObjectName(bad), bad).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});
