import { describe, expect, it } from 'vitest';
import { checkTusResumable, parseTusInteger, parseUploadMetadata } from './tus-headers.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('tus headers', () => {
  it('decodes Upload-Metadata pairs, empty values included', () => {
    const header = `bucketName ${b64('lot-images')},objectName ${b64('u/ä b.jpg')}, flag`;
    expect(Object.fromEntries(parseUploadMetadata(header))).toEqual({
      bucketName: 'lot-images',
      objectName: 'u/ä b.jpg',
      flag: '',
    });
    expect(parseUploadMetadata(undefined).size).toBe(0);
  });

  it('refuses malformed metadata: extra fields, repeated keys, values that are not base64', () => {
    expect(() => parseUploadMetadata('a b c')).toThrow(/malformed/);
    expect(() => parseUploadMetadata(`a ${b64('x')},a ${b64('y')}`)).toThrow(/malformed/);
    expect(() => parseUploadMetadata('a not*base64')).toThrow(/base64/);
  });

  it('reads lengths and offsets as non-negative integers only', () => {
    expect(parseTusInteger('0', 'Upload-Offset')).toBe(0);
    expect(parseTusInteger('52428800', 'Upload-Length')).toBe(52428800);
    for (const bad of [undefined, '', '-1', '1.5', '1e3', '9999999999999999']) {
      expect(() => parseTusInteger(bad, 'Upload-Length')).toThrow(/non-negative integer/);
    }
  });

  it('answers another protocol version with 412', () => {
    expect(() => checkTusResumable('1.0.0')).not.toThrow();
    expect(() => checkTusResumable(undefined)).toThrow(expect.objectContaining({ status: 412 }));
    expect(() => checkTusResumable('0.2.2')).toThrow(expect.objectContaining({ status: 412 }));
  });
});
