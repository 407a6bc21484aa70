// A short day under faults: the day benchmark's traffic (scripts/bench-day) at a small K, its hour compressed to
// 90 s, with the embedded PostgreSQL SIGKILLed, a server worker SIGKILLed and a webhook receiver down for 20 s. The
// audit must be clean (every acknowledged write in the database exactly once, every object byte for byte, every
// event delivered, queued or failed by the schedule), requests during the faults must meet success or contract
// 503/504 bodies (no hangs, resets or 500s), and the audit must catch an acknowledged row deleted behind its back.
// Latency service levels are the benchmark's to judge on a quiet machine, not asserted here.
import { describe, expect, it } from 'vitest';
import { formatDay } from '../../../scripts/bench-day/report.js';
import { type DayResult, runDay } from '../../../scripts/bench-day/run.js';

const FAULTS = ['postgres-sigkill', 'worker-sigkill', 'receiver-down'] as const;

describe('a short day with faults', () => {
  let result: DayResult;

  it('plays the day through the faults and prints its figures', async () => {
    const lines: string[] = [];
    result = await runDay({ k: 0.05, compression: 40, faults: FAULTS, dropOne: true, log: (l) => lines.push(l) });
    console.log([...lines, formatDay(result)].join('\n'));
    expect(result.faults.map((f) => [f.name, f.skipped])).toEqual(FAULTS.map((f) => [f, undefined]));
    expect(result.requests.length).toBeGreaterThan(500);
  }, 300_000);

  it('loses nothing it acknowledged: the audit is clean', () => {
    const problems = result.audit.checks.flatMap((c) => c.problems);
    expect(problems).toEqual([]);
    const checked = Object.fromEntries(result.audit.checks.map((c) => [c.name.split(' (')[0], c.checked]));
    expect(checked['messages exactly once']).toBeGreaterThan(0);
    expect(checked['objects byte for byte']).toBeGreaterThan(0);
    expect(checked['events delivered, queued or failed']).toBeGreaterThan(0);
  });

  it('answers during each fault with success or a contract 503/504, never a hang, a reset or a 500', () => {
    for (const fault of result.faults) {
      expect(fault.violations, fault.name).toEqual([]);
      expect(fault.errorsEndMs, `${fault.name}: requests kept failing`).toBeDefined();
    }
    expect(result.levels.find((l) => l.name.startsWith('5xx'))?.held).toBe(true);
  });

  it('reports an acknowledged write deleted behind its back', () => {
    expect(result.droppedId).toBeDefined();
    expect(result.auditAfterDrop?.clean).toBe(false);
    const problems = result.auditAfterDrop!.checks.flatMap((c) => c.problems);
    expect(problems.some((p) => p.includes(result.droppedId!) && p.includes('not in public.messages'))).toBe(true);
  });
});
