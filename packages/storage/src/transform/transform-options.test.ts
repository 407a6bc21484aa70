import { describe, expect, it } from 'vitest';
import {
  canonicalTransform,
  transformationsHeader,
  transformClaim,
  transformFromObject,
  transformFromQuery,
} from './transform-options.js';

const limits = { maxDimension: 2000 };
const query = (params: Record<string, string>) => transformFromQuery((name) => params[name], limits);

describe('transform options', () => {
  it('reads storage-js query parameters with Supabase defaults (cover, quality 80)', () => {
    expect(query({ width: '300' })).toEqual({
      width: 300,
      height: undefined,
      resize: 'cover',
      quality: undefined,
      format: undefined,
    });
    expect(query({ width: '0', height: '20', resize: 'fill', quality: '20', format: 'origin' })).toEqual({
      width: undefined,
      height: 20,
      resize: 'fill',
      quality: 20,
      format: 'origin',
    });
  });

  it.each([
    [{ width: '2001' }, 'width must be an integer between 0 and 2000'],
    [{ height: '-1' }, 'height must be an integer between 0 and 2000'],
    [{ width: '1.5' }, 'width must be an integer between 0 and 2000'],
    [{ width: '1e3' }, 'width must be an integer between 0 and 2000'],
    [{ quality: '101' }, 'quality must be an integer between 20 and 100'],
    [{ resize: 'crop' }, 'resize must be one of cover, contain, fill'],
    [{ format: 'png' }, 'format must be one of origin, webp, avif'],
  ])('refuses %o with 400', (params, message) => {
    expect(() => query(params)).toThrow(expect.objectContaining({ status: 400, message }));
  });

  it('round-trips through a signed token claim and keys equal options alike', () => {
    const options = transformFromObject({ width: 100, resize: 'contain', format: 'webp' }, limits);
    const again = transformFromObject(JSON.parse(JSON.stringify(transformClaim(options))), limits);
    expect(again).toEqual(options);
    expect(canonicalTransform(again)).toBe(canonicalTransform(query({ width: '100', resize: 'contain' })));
    expect(() => transformFromObject([1], limits)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => transformFromObject({ width: '100' }, limits)).not.toThrow();
    // An explicit default quality renders the same bytes, so it shares the key.
    expect(canonicalTransform(query({ quality: '80' }))).toBe(canonicalTransform(query({})));
  });

  it('reports the options in imgproxy words, as the X-Transformations header of Supabase does', () => {
    expect(transformationsHeader(query({ width: '200', height: '200', quality: '60' }))).toBe(
      'height:200,width:200,resizing_type:fill,quality:60',
    );
    expect(transformationsHeader(query({ width: '10', resize: 'contain', format: 'webp' }))).toBe(
      'width:10,resizing_type:fit,format:webp',
    );
    expect(transformationsHeader(query({ resize: 'fill', format: 'origin' }))).toBe('');
  });
});
