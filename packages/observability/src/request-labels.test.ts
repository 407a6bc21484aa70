import { describe, expect, it } from 'vitest';
import { type Family, familyOf, labelSetIndex, methodLabel } from './request-labels.js';

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
    ['/rest/v1x', 'other'],
    ['rest/v1/a', 'other'],
    ['//rest/v1', 'other'],
    ['/realtime/v1/', 'realtime'],
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

  it('names each label set by its own number, the same for methods that share the OTHER label', () => {
    const families: Family[] = ['auth', 'rest', 'storage', 'functions', 'realtime', 'other'];
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'];
    const seen = new Set<number>();
    for (const f of families)
      for (const m of methods) for (const s of [100, 200, 404, 599, 999]) seen.add(labelSetIndex(f, m, s));
    expect(seen.size).toBe(families.length * methods.length * 5);
    expect(labelSetIndex('rest', 'PURGE', 200)).toBe(labelSetIndex('rest', 'OTHER', 200));
    expect(labelSetIndex('rest', 'get', 200)).toBe(labelSetIndex('rest', 'OTHER', 200));
  });
});
