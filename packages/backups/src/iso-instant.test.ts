import { expect, it } from 'vitest';
import { parseIsoInstant } from './iso-instant.js';

it('reads an ISO-8601 date and time with an offset or Z as that instant', () => {
  expect(parseIsoInstant('2026-12-06T09:30:00Z')?.toISOString()).toBe('2026-12-06T09:30:00.000Z');
  expect(parseIsoInstant('2026-12-06T09:30Z')?.toISOString()).toBe('2026-12-06T09:30:00.000Z');
  expect(parseIsoInstant('2026-12-06T10:30:00.250+01:00')?.toISOString()).toBe('2026-12-06T09:30:00.250Z');
  expect(parseIsoInstant('2026-12-06 04:30:00-0500')?.toISOString()).toBe('2026-12-06T09:30:00.000Z');
  expect(parseIsoInstant('2024-02-29T00:00:00+00')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
});

it('refuses words, impossible fields and times without an offset', () => {
  for (const text of [
    'yesterday',
    'now',
    '',
    '2026-13-45T99:00:00Z',
    '2026-02-30T10:00:00Z',
    '2025-02-29T10:00:00Z',
    '2026-12-06T24:00:00Z',
    '2026-12-06T09:60:00Z',
    '2026-12-06T09:30:00+25:00',
    '2026-12-06T09:30:00',
    '2026-12-06',
    '1765013400',
  ])
    expect(parseIsoInstant(text), text).toBeUndefined();
});
