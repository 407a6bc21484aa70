import { expect, it } from 'vitest';
import { segmentArchived } from './wal-archive.js';

it('takes a segment as archived when it or a later one is, and not for a backup history file named after it', () => {
  const wal = '000000010000000000000003';
  expect(segmentArchived(null, wal)).toBe(false);
  expect(segmentArchived('000000010000000000000002', wal)).toBe(false);
  expect(segmentArchived('000000010000000000000002.00000028.backup', wal)).toBe(false);
  expect(segmentArchived('000000010000000000000003.00000028.backup', wal)).toBe(false);
  expect(segmentArchived(wal, wal)).toBe(true);
  expect(segmentArchived('000000010000000000000004', wal)).toBe(true);
  expect(segmentArchived('000000010000000000000004.00000060.backup', wal)).toBe(true);
});
