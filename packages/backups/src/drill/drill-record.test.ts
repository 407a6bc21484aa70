// The drill record comes from the backup target, which another host or person may write: a record of another shape
// is read as none (no metric or status line from it), and a whole record is read back as written.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { resolveTarget } from '../backup-target.js';
import { readDrillRecord, writeDrillRecord } from './drill-record.js';

const dir = mkdtempSync(join(tmpdir(), 'drill-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = {
  outcome: 'passed' as const,
  started_at: '2026-12-06T10:00:00.000Z',
  finished_at: '2026-12-06T10:00:13.000Z',
  duration_seconds: 13,
  backup_id: 'b1',
  to_time: '2026-12-06T09:59:59.000Z',
  reason: 'every check passed',
  checked: null,
};

it('reads back a record it wrote, with the pass carried', async () => {
  const target = resolveTarget(join(dir, 'whole'));
  const written = await writeDrillRecord(target, run);
  expect(written).toMatchObject({ last_success_at: run.finished_at, failures_total: 0 });
  expect(await readDrillRecord(target)).toEqual(written);
});

it('reads a record of another shape, or a torn one, as none', async () => {
  const target = resolveTarget(join(dir, 'hostile'));
  const file = join(dir, 'hostile', 'drills', 'last.json');
  mkdirSync(join(dir, 'hostile', 'drills'), { recursive: true });
  const whole = { ...run, last_success_at: null, last_success_duration_seconds: null, failures_total: 2 };
  for (const text of [
    'null',
    '[]',
    '"passed"',
    '{"outcome": "passed"',
    JSON.stringify({ ...whole, outcome: 'exploded' }),
    JSON.stringify({ ...whole, failures_total: 'many' }),
    JSON.stringify({ ...whole, finished_at: 'yesterday' }),
    JSON.stringify({ ...whole, last_success_at: 12 }),
  ]) {
    writeFileSync(file, text);
    expect(await readDrillRecord(target), text).toBeUndefined();
  }
  writeFileSync(file, JSON.stringify(whole));
  expect(await readDrillRecord(target)).toEqual(whole);
});
