import { describe, expect, it } from 'vitest';
import { changesToCheck, tenantsOf } from './tenant-scope.js';

describe('tenant scope', () => {
  it('checks only the changes of the group’s own tenants, and those whose tenant is unknown', () => {
    expect(changesToCheck(new Set(['a', 'c']), ['a', 'b', null, 'c', 'b'])).toEqual([0, 2, 3]);
  });

  it('checks nothing for a group none of whose tenants changed', () => {
    expect(changesToCheck(new Set(['x']), ['a', 'b'])).toEqual([]);
    expect(changesToCheck(new Set(), ['a'])).toEqual([]);
  });

  it('checks everything when the tenants are not limited or the table has no tenant column', () => {
    expect(changesToCheck(null, ['a', 'b'])).toBeUndefined();
    expect(changesToCheck(new Set(['a']), undefined)).toBeUndefined();
  });

  it('reads the tenant from each row image', () => {
    expect(tenantsOf('auction_id', [{ auction_id: 'a' }, { auction_id: null }, {}])).toEqual(['a', null, null]);
    expect(tenantsOf(undefined, [{ auction_id: 'a' }])).toBeUndefined();
  });
});
