// When scheduled drills run: one interval after the last recorded drill (at least a minute after the start), then
// one interval after each; the first of a target without a record one interval after the start; none after stop().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveTarget } from '../backup-target.js';
import { writeDrillRecord } from './drill-record.js';
import { scheduleDrills } from './drill-schedule.js';
import type { DrillResult } from './restore-drill.js';

const HOUR = 3600_000;
const NOW = Date.parse('2026-12-06T12:00:00Z');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-drill-schedule-'));
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Schedules daily drills that only note when they ran, on fake timers from NOW. */
function daily(runs: number[]) {
  vi.useFakeTimers({ now: NOW, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  return scheduleDrills({
    intervalMs: 24 * HOUR,
    target: resolveTarget(dir),
    drill: async (): Promise<DrillResult> => {
      runs.push(Date.now());
      return { outcome: 'busy', reason: 'noted' };
    },
    onDone: () => {},
    onError: () => {},
  });
}

/**
 * The record is read with real file I/O: wait until the schedule has armed its timer from it (setImmediate and
 * performance are not faked; vi.waitFor would move the fake clock while it waits).
 */
async function armed(): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (vi.getTimerCount() === 0) {
    if (performance.now() > deadline) throw new Error('the schedule armed no timer');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function recordDrillAt(ms: number): Promise<void> {
  const at = new Date(ms).toISOString();
  await writeDrillRecord(resolveTarget(dir), {
    outcome: 'passed',
    started_at: at,
    finished_at: at,
    duration_seconds: 1,
    backup_id: null,
    to_time: null,
    reason: '',
    checked: null,
  });
}

describe('scheduleDrills', () => {
  it('runs one interval after the last recorded drill, then one interval after each, and none after stop()', async () => {
    await recordDrillAt(NOW - 20 * HOUR);
    const runs: number[] = [];
    const schedule = daily(runs);
    await armed();
    await vi.advanceTimersByTimeAsync(4 * HOUR - 1);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([NOW + 4 * HOUR]);
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    expect(runs).toEqual([NOW + 4 * HOUR, NOW + 28 * HOUR]);
    await schedule.stop();
    await vi.advanceTimersByTimeAsync(48 * HOUR);
    expect(runs).toHaveLength(2);
  });

  it('runs an overdue drill a minute after the start, not at once', async () => {
    await recordDrillAt(NOW - 30 * HOUR);
    const runs: number[] = [];
    const schedule = daily(runs);
    await armed();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toEqual([NOW + 60_000]);
    await schedule.stop();
  });

  it('runs the first drill of a target without a record one interval after the start', async () => {
    const runs: number[] = [];
    const schedule = daily(runs);
    await armed();
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    expect(runs).toEqual([NOW + 24 * HOUR]);
    await schedule.stop();
  });
});
