// The thresholds of the status page's states, at and around each edge (docs/console.md lists them).
import { describe, expect, it } from 'vitest';
import {
  archiveCheck,
  backupsCheck,
  baseBackupCheck,
  databaseCheck,
  diskCheck,
  drillCheck,
  replicaCheck,
  replicasCheck,
  webhookCheck,
  worstState,
} from './status-checks.js';

const GB = 1_000_000_000;

describe('disk', () => {
  it.each([
    [500 * GB, 1000 * GB, 'ok'],
    [99 * GB, 1000 * GB, 'warning'], // under 10 %
    [4 * GB, 20 * GB, 'warning'], // 20 %, but under 5 GB
    [19 * GB, 1000 * GB, 'failing'], // under 2 %
    [0.9 * GB, 10 * GB, 'failing'], // 9 %, and under 1 GB
  ])('%d free of %d is %s', (freeBytes, totalBytes, state) => {
    expect(diskCheck({ freeBytes, totalBytes }).state).toBe(state);
  });
  const MB = 1_000_000;
  it.each([
    [300 * MB, 'warning'], // over the floor, but under twice it
    [199 * MB, 'failing'], // under the floor: uploads refused
  ])('%d free over a floor of 200 MB is %s', (freeBytes, state) => {
    expect(diskCheck({ freeBytes, totalBytes: 1000 * GB, floorBytes: 200 * MB }).state).toBe(state);
  });
  it('with a floor, judges by it rather than by the fixed failing thresholds', () => {
    // 0.9 GB free of 100 GB would be failing without a floor; over a 100 MB floor it is only a warning.
    expect(diskCheck({ freeBytes: 0.9 * GB, totalBytes: 100 * GB, floorBytes: 100 * MB }).state).toBe('warning');
    expect(diskCheck({ freeBytes: 500 * GB, totalBytes: 1000 * GB, floorBytes: 10 * GB }).state).toBe('ok');
    expect(diskCheck({ freeBytes: 50 * MB, totalBytes: 300 * MB, floorBytes: 100 * MB }).reason).toBe(
      '50.0 MB free of 300.0 MB (16.7 %): under the floor of 100.0 MB, so uploads, CSV imports and local backups are refused',
    );
  });
  it('says the numbers', () => {
    expect(diskCheck({ freeBytes: 99 * GB, totalBytes: 1000 * GB }).reason).toBe(
      '99.0 GB free of 1.0 TB (9.9 %): under 10 % or 5 GB',
    );
  });
});

describe('archiving', () => {
  const base = { failing: false, failedCount: 0, lastFailedWal: null, pendingSegments: 0, timeoutSeconds: 60 };
  it('is failing while the newest attempt failed, naming the segment', () => {
    const check = archiveCheck({
      ...base,
      failing: true,
      failedCount: 4,
      lastFailedWal: '000000010000000000000003',
      lastArchivedAgeSeconds: 30,
      pendingSegments: 2,
    });
    expect(check).toEqual({
      state: 'failing',
      reason: 'archiving 000000010000000000000003 fails (4 failures); 2 segments waiting in pg_wal',
    });
  });
  it('is behind only when segments wait longer than three archive timeouts', () => {
    expect(archiveCheck({ ...base, lastArchivedAgeSeconds: 181, pendingSegments: 1 }).state).toBe('warning');
    expect(archiveCheck({ ...base, lastArchivedAgeSeconds: 179, pendingSegments: 1 }).state).toBe('ok');
    // A quiet server archives nothing for hours: not a fault.
    expect(archiveCheck({ ...base, lastArchivedAgeSeconds: 7200, pendingSegments: 0 })).toEqual({
      state: 'ok',
      reason: 'last segment archived 2 h ago',
    });
    expect(archiveCheck({ ...base, lastArchivedAgeSeconds: null, pendingSegments: 3 }).state).toBe('warning');
  });
});

describe('base backups', () => {
  it('warns without one or past 26 hours, fails past 8 days', () => {
    expect(baseBackupCheck({ ageSeconds: null }).state).toBe('warning');
    expect(baseBackupCheck({ ageSeconds: 3600 })).toEqual({ state: 'ok', reason: 'newest base backup 1 h old' });
    expect(baseBackupCheck({ ageSeconds: 27 * 3600 }).state).toBe('warning');
    expect(baseBackupCheck({ ageSeconds: 9 * 86_400 }).state).toBe('failing');
  });
  it('puts the worse part first', () => {
    const combined = backupsCheck(
      { state: 'ok', reason: 'last segment archived 5 s ago' },
      { state: 'warning', reason: 'no base backup yet' },
    );
    expect(combined).toEqual({ state: 'warning', reason: 'no base backup yet; last segment archived 5 s ago' });
  });
});

describe('restore drills', () => {
  const passed = { outcome: 'passed' as const, reason: 'matched', ageSeconds: 3600 };
  it('is ok before the first drill and after a pass, a warning after a failure or a skip, naming why', () => {
    expect(drillCheck({ last: null, lastSuccessAgeSeconds: null, intervalSeconds: 86_400 })).toEqual({
      state: 'ok',
      reason: 'no restore drill yet (every 1 d)',
    });
    expect(drillCheck({ last: passed, lastSuccessAgeSeconds: 3600, intervalSeconds: 86_400 })).toEqual({
      state: 'ok',
      reason: 'restore drill passed 1 h ago',
    });
    const failed = {
      outcome: 'failed' as const,
      reason: 'archived WAL 0000000100000000000000A3 is damaged',
      ageSeconds: 60,
    };
    expect(drillCheck({ last: failed, lastSuccessAgeSeconds: 90_000, intervalSeconds: 86_400 })).toEqual({
      state: 'warning',
      reason: 'restore drill failed 1 min ago: archived WAL 0000000100000000000000A3 is damaged',
    });
    const skipped = { outcome: 'skipped' as const, reason: 'no room', ageSeconds: 60 };
    expect(drillCheck({ last: skipped, lastSuccessAgeSeconds: null, intervalSeconds: 86_400 }).state).toBe('warning');
  });
  it('warns when the last pass is older than two intervals and an hour', () => {
    const old = { ...passed, ageSeconds: 2 * 86_400 + 3601 };
    expect(drillCheck({ last: old, lastSuccessAgeSeconds: old.ageSeconds, intervalSeconds: 86_400 }).state).toBe(
      'warning',
    );
    expect(drillCheck({ last: old, lastSuccessAgeSeconds: old.ageSeconds, intervalSeconds: 0 }).state).toBe('ok');
  });
  it('puts a failed drill first among the backup parts', () => {
    const ok = { state: 'ok' as const, reason: 'fine' };
    const drill = { state: 'warning' as const, reason: 'restore drill failed' };
    expect(backupsCheck(ok, ok, drill)).toEqual({ state: 'warning', reason: 'restore drill failed; fine; fine' });
  });
});

describe('webhooks', () => {
  it('warns on a disabled endpoint or a delivery due for over 5 min, fails past an hour', () => {
    expect(webhookCheck({ due: 0, oldestDueSeconds: null, disabledEndpoints: 0 })).toEqual({
      state: 'ok',
      reason: 'no delivery waiting',
    });
    expect(webhookCheck({ due: 3, oldestDueSeconds: 200, disabledEndpoints: 0 })).toEqual({
      state: 'ok',
      reason: '3 deliveries due, the oldest for 3 min 20 s',
    });
    expect(webhookCheck({ due: 1, oldestDueSeconds: 301, disabledEndpoints: 0 }).state).toBe('warning');
    expect(webhookCheck({ due: 0, oldestDueSeconds: null, disabledEndpoints: 1 })).toEqual({
      state: 'warning',
      reason: 'no delivery waiting; 1 endpoint disabled',
    });
    expect(webhookCheck({ due: 1, oldestDueSeconds: 3601, disabledEndpoints: 0 }).state).toBe('failing');
  });
});

describe('replicas and database', () => {
  it('judges each replica against DB_READ_MAX_LAG_MS, and all of them together', () => {
    expect(replicaCheck({ healthy: true, lagMs: 0 }, 5000).state).toBe('ok');
    expect(replicaCheck({ healthy: true, lagMs: 3000 }, 5000).state).toBe('warning');
    expect(replicaCheck({ healthy: false, lagMs: null }, 5000).state).toBe('failing');
    expect(replicasCheck([])).toEqual({ state: 'off', reason: 'none configured' });
    const up = { state: 'ok' as const, reason: 'up' };
    const down = { state: 'failing' as const, reason: 'down' };
    expect(replicasCheck([up, down])).toEqual({ state: 'warning', reason: '1 of 2 up' });
    expect(replicasCheck([down]).state).toBe('failing');
  });
  it('fails when PostgreSQL does not answer, warns past 80 % of max_connections', () => {
    expect(databaseCheck({ up: false }).state).toBe('failing');
    expect(databaseCheck({ up: true, connections: 81, maxConnections: 100 }).state).toBe('warning');
    expect(databaseCheck({ up: true, connections: 10, maxConnections: 100 })).toEqual({
      state: 'ok',
      reason: 'up, 10 of 100 connections',
    });
  });
  it('takes the worst state, off counting as ok', () => {
    expect(worstState(['off', 'ok'])).toBe('ok');
    expect(worstState(['ok', 'failing', 'warning'])).toBe('failing');
  });
});
