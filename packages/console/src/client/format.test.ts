import { expect, it } from 'vitest';
import { formatAgo, formatBytes, formatDuration } from './format.js';

it('formats bytes in decimal units', () => {
  expect(formatBytes(0)).toBe('0 B');
  expect(formatBytes(999)).toBe('999 B');
  expect(formatBytes(1_200_000_000)).toBe('1.2 GB');
  expect(formatBytes(16 * 1024 * 1024)).toBe('16.8 MB');
  expect(formatBytes(null)).toBe('—');
});

it('formats durations with the two largest units', () => {
  expect(formatDuration(0)).toBe('0 s');
  expect(formatDuration(45)).toBe('45 s');
  expect(formatDuration(200)).toBe('3 min 20 s');
  expect(formatDuration(3600)).toBe('1 h');
  expect(formatDuration(7500)).toBe('2 h 5 min');
  expect(formatDuration(3 * 86_400 + 4 * 3600 + 59)).toBe('3 d 4 h');
  expect(formatDuration(undefined)).toBe('—');
});

it('says how long ago an instant was', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  expect(formatAgo('2026-01-01T10:00:00Z', now)).toBe('2 hours ago');
  expect(formatAgo('2026-01-01T11:59:30Z', now)).toBe('30 seconds ago');
  expect(formatAgo('2026-01-01T12:00:00Z', now)).toBe('now');
  expect(formatAgo(null, now)).toBe('—');
});
