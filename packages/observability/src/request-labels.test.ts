import { describe, expect, it } from 'vitest';
import { familyOf, methodLabel } from './request-labels.js';

describe('request labels', () => {
  it.each([
    ['/rest/v1/auctions', 'rest'],
    ['/rest/v1', 'rest'],
    ['/auth/v1/token', 'auth'],
    ['/storage/v1/object/public/a/b.png', 'storage'],
    ['/functions/v1/execute-query', 'functions'],
    ['/realtime/v1/websocket', 'realtime'],
    ['/rest/v2/auctions', 'other'],
    ['/restx/v1/a', 'other'],
    ['/metrics', 'other'],
    ['/', 'other'],
  ])('%s is family %s', (path, family) => {
    expect(familyOf(path)).toBe(family);
  });

  it('maps a method outside the standard ones to OTHER', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PURGE')).toBe('OTHER');
    expect(methodLabel('get')).toBe('OTHER');
  });
});
