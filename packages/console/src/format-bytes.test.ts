// One unit for sizes wherever they are shown: decimal, 1 MB = 10^6 bytes (issue 56, item 8: the CLI listed a backup
// at 53.0 MB that the console showed at 55.6 MB).
import { expect, it } from 'vitest';
import { formatBytes } from './format-bytes.js';
import { bytesText } from './status-checks.js';

it('counts in decimal units with one decimal', () => {
  expect(formatBytes(55_600_000)).toBe('55.6 MB');
  expect(formatBytes(53 * 1024 * 1024)).toBe('55.6 MB');
  expect(formatBytes(999)).toBe('999 B');
  expect(formatBytes(1_000)).toBe('1.0 KB');
  expect(formatBytes(1_200_000_000)).toBe('1.2 GB');
  expect(formatBytes(undefined)).toBe('—');
});

it("is the status checks' unit too", () => {
  for (const bytes of [0, 999, 64 * 1024 * 1024, 5e9]) expect(bytesText(bytes)).toBe(formatBytes(bytes));
});
