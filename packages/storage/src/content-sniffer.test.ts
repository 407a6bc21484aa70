import { describe, expect, it } from 'vitest';
import { normaliseMimeType, sameImageFamily, sniffImageType, typeAllowed } from './content-sniffer.js';
import { decideType } from './content-type-policy.js';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');
const ftyp = (major: string, ...compatible: string[]) => {
  const body = Buffer.from(`ftyp${major}\0\0\0\0${compatible.join('')}`, 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(body.length + 4);
  return Buffer.concat([size, body]);
};

describe('sniffImageType', () => {
  it.each([
    ['jpeg', hex('ffd8ffe000104a464946'), 'image/jpeg'],
    ['png', hex('89504e470d0a1a0a0000000d'), 'image/png'],
    ['gif87a', Buffer.from('GIF87a....'), 'image/gif'],
    ['gif89a', Buffer.from('GIF89a....'), 'image/gif'],
    ['webp', Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WEBPVP8 ')]), 'image/webp'],
    ['heic', ftyp('heic', 'mif1', 'heic'), 'image/heic'],
    ['heif with heic brand', ftyp('mif1', 'mif1', 'heic'), 'image/heic'],
    ['plain heif', ftyp('mif1', 'mif1'), 'image/heif'],
    ['avif', ftyp('avif', 'mif1', 'avif'), undefined],
    ['riff wave', Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WAVEfmt ')]), undefined],
    ['text', Buffer.from('hello world, not an image'), undefined],
    ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">'), undefined],
    ['empty', Buffer.alloc(0), undefined],
    ['truncated png', hex('89504e47'), undefined],
  ])('%s', (_name, bytes, expected) => {
    expect(sniffImageType(bytes)).toBe(expected);
  });
});

describe('declared types', () => {
  it('normalises aliases and parameters, and treats octet-stream as undeclared', () => {
    expect(normaliseMimeType('Image/JPG; charset=binary')).toBe('image/jpeg');
    expect(normaliseMimeType('application/octet-stream')).toBeUndefined();
    expect(normaliseMimeType('')).toBeUndefined();
    expect(sameImageFamily('image/heic', 'image/heif')).toBe(true);
    expect(sameImageFamily('image/png', 'image/jpeg')).toBe(false);
  });

  const allowed = ['image/jpeg', 'image/png', 'image/heic', 'image/heif'];
  it('keeps the declared label when it matches the bytes, and takes the sniffed type when none is declared', () => {
    expect(decideType(hex('ffd8ffe0'), 'image/jpg', allowed)).toBe('image/jpeg');
    expect(decideType(ftyp('mif1', 'mif1'), 'image/heic', allowed)).toBe('image/heic');
    expect(decideType(hex('89504e470d0a1a0a'), undefined, allowed)).toBe('image/png');
  });
  it('refuses bytes that are not an allowed image, or that contradict the declared type (415)', () => {
    expect(() => decideType(Buffer.from('GIF89a'), 'image/gif', allowed)).toThrow(
      expect.objectContaining({ status: 415 }),
    );
    expect(() => decideType(hex('ffd8ffe0'), 'image/png', allowed)).toThrow(expect.objectContaining({ status: 415 }));
    expect(() => decideType(Buffer.from('#!/bin/sh'), 'image/png', null)).toThrow(
      expect.objectContaining({ status: 415 }),
    );
  });
  it('lets a bucket without a type list store anything that does not lie about being an image', () => {
    expect(decideType(Buffer.from('a,b\n1,2'), 'text/csv', null)).toBe('text/csv');
    expect(decideType(Buffer.from('??'), undefined, null)).toBe('application/octet-stream');
  });
  it('honours type/* wildcards and non-image lists, but never lets unrecognised bytes pass as an image', () => {
    expect(typeAllowed('image/webp', ['image/*'])).toBe(true);
    expect(typeAllowed('text/csv', ['image/*'])).toBe(false);
    expect(decideType(hex('89504e470d0a1a0a'), undefined, ['image/*'])).toBe('image/png');
    expect(decideType(Buffer.from('a,b\n1,2'), 'text/csv', ['text/csv'])).toBe('text/csv');
    expect(decideType(Buffer.from('a,b\n1,2'), 'text/csv', ['text/*', 'image/png'])).toBe('text/csv');
    expect(() => decideType(Buffer.from('a,b\n1,2'), undefined, ['text/csv'])).toThrow(
      expect.objectContaining({ status: 415 }),
    );
    expect(() => decideType(Buffer.from('a,b\n1,2'), 'image/png', ['image/*'])).toThrow(
      expect.objectContaining({ status: 415 }),
    );
    expect(() => decideType(hex('89504e470d0a1a0a'), 'image/png', ['text/csv'])).toThrow(
      expect.objectContaining({ status: 415 }),
    );
  });
});
