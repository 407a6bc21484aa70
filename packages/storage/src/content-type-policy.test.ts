import { describe, expect, it } from 'vitest';
import { decideType, isActiveContent } from './content-type-policy.js';

const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
const refused = expect.objectContaining({ status: 415 });

describe('decideType, declared rule (buckets made through the API)', () => {
  it('stores the declared type as sent, parameters included, when the bucket allows it', () => {
    expect(decideType(Buffer.from('hello'), 'text/plain;charset=UTF-8', null, 'declared')).toBe(
      'text/plain;charset=UTF-8',
    );
    expect(decideType(jpeg, 'image/png', ['image/png'], 'declared')).toBe('image/png');
    expect(decideType(jpeg, undefined, null, 'declared')).toBe('image/jpeg');
    expect(decideType(Buffer.from('??'), undefined, null, 'declared')).toBe('application/octet-stream');
    // An alias is stored under its canonical name; a header-unsafe declaration is stored without its parameters.
    expect(decideType(jpeg, 'image/jpg', null, 'declared')).toBe('image/jpeg');
    expect(decideType(Buffer.from('a'), 'text/plain; x="\u00e9"', null, 'declared')).toBe('text/plain');
  });

  it('refuses a declared type the bucket does not allow', () => {
    expect(() => decideType(jpeg, 'image/jpeg', ['image/png'], 'declared')).toThrow(refused);
    expect(() => decideType(Buffer.from('a'), undefined, ['image/png'], 'declared')).toThrow(refused);
  });

  it('never stores markup or programs under an image type', () => {
    for (const body of [
      '<!doctype html><p>',
      '  <svg xmlns="x"/>',
      '<?xml version="1.0"?>',
      '#!/bin/sh',
      'MZ\x90\x00',
    ]) {
      expect(() => decideType(Buffer.from(body, 'latin1'), 'image/png', null, 'declared'), body).toThrow(refused);
    }
    expect(decideType(Buffer.from('<svg/>'), 'image/svg+xml', null, 'declared')).toBe('image/svg+xml');
    expect(decideType(Buffer.from('<p>hi</p>'), 'text/html', null, 'declared')).toBe('text/html');
  });
});

describe('decideType, strict rule (the default of buckets made in SQL)', () => {
  it('lets the bytes decide and keeps parameters of types it cannot check', () => {
    expect(() => decideType(jpeg, 'image/png', ['image/png'], 'strict')).toThrow(refused);
    expect(decideType(Buffer.from('a,b'), 'text/csv; charset=utf-8', null, 'strict')).toBe('text/csv; charset=utf-8');
    expect(decideType(jpeg, 'image/jpeg', null)).toBe('image/jpeg');
  });
});

describe('isActiveContent', () => {
  it('recognises markup and executables, not images or text', () => {
    expect(isActiveContent(Buffer.from('\x7fELF', 'latin1'))).toBe(true);
    expect(isActiveContent(Buffer.from('cffaedfe', 'hex'))).toBe(true);
    expect(isActiveContent(Buffer.from('<html>'))).toBe(true);
    expect(isActiveContent(jpeg)).toBe(false);
    expect(isActiveContent(Buffer.from('plain words'))).toBe(false);
  });
});
