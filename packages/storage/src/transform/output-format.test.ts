import { describe, expect, it } from 'vitest';
import { chooseFormat, originFormat } from './output-format.js';

describe('chooseFormat', () => {
  it.each([
    [undefined, undefined, 'origin'],
    [undefined, '*/*', 'origin'],
    [undefined, 'image/avif,image/webp,image/apng,*/*;q=0.8', 'avif'],
    [undefined, 'image/webp,*/*', 'webp'],
    [undefined, 'IMAGE/WEBP', 'webp'],
    [undefined, 'image/avif;q=0, image/webp;q=0.9', 'webp'],
    [undefined, 'image/avif;q=0.0', 'origin'],
    ['origin', 'image/avif,image/webp', 'origin'],
    ['webp', undefined, 'webp'],
    ['avif', 'image/jpeg', 'avif'],
  ] as const)('format %s with Accept %s gives %s', (format, accept, expected) => {
    expect(chooseFormat(format, accept)).toBe(expected);
  });
});

describe('originFormat', () => {
  it('keeps the formats it can write and replaces the others by transparency', () => {
    expect(originFormat('png', true)).toBe('png');
    expect(originFormat('gif', false)).toBe('gif');
    expect(originFormat('heif', false)).toBe('avif');
    expect(originFormat('svg', true)).toBe('png');
    expect(originFormat('tiff', false)).toBe('jpeg');
  });
});
