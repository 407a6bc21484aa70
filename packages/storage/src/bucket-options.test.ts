import { describe, expect, it } from 'vitest';
import { newBucketId, parseAllowedMimeTypes, parseBucketOptions, parseFileSizeLimit } from './bucket-options.js';

describe('bucket options', () => {
  it('reads sizes as bytes or with units, and null as "no own limit"', () => {
    expect(parseFileSizeLimit(1024)).toBe(1024);
    expect(parseFileSizeLimit('5MB')).toBe(5_000_000);
    expect(parseFileSizeLimit('20mb')).toBe(20_000_000);
    expect(parseFileSizeLimit('1kb')).toBe(1000);
    expect(parseFileSizeLimit('2GB')).toBe(2_000_000_000);
    expect(parseFileSizeLimit(' 2 kb ')).toBe(2000);
    expect(parseFileSizeLimit(null)).toBeNull();
    expect(parseFileSizeLimit(undefined)).toBeUndefined();
    for (const bad of [0, -1, 1.5, '5 parsecs', '', true, {}])
      expect(() => parseFileSizeLimit(bad), String(bad)).toThrow(expect.objectContaining({ status: 400 }));
  });
  it('accepts exact types and wildcards, folds case and treats an empty list as no restriction', () => {
    expect(parseAllowedMimeTypes(['Image/PNG', 'image/*', 'image/png'])).toEqual(['image/png', 'image/*']);
    expect(parseAllowedMimeTypes([])).toBeNull();
    for (const bad of ['image/png', ['png'], ['*/*'], [1], ['image/png; x=1']]) {
      expect(() => parseAllowedMimeTypes(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
  it('takes id or name for a new bucket and checks it', () => {
    expect(newBucketId({ id: 'docs', name: 'docs' })).toBe('docs');
    expect(newBucketId({ name: 'docs' })).toBe('docs');
    expect(() => newBucketId({ id: 'docs', name: 'other' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => newBucketId({ id: '../x' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parseBucketOptions({ public: 'yes' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(parseBucketOptions({ public: true })).toEqual({
      public: true,
      file_size_limit: undefined,
      allowed_mime_types: undefined,
    });
  });
});
