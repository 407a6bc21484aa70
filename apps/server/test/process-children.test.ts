import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { childPids, workerPids } from './support/process-children.js';

// A cluster's workers are the primary's children with its own command line, not the other processes it starts
// (PostgreSQL; the watchdog, which is Node too). A parent made for the test starts one copy of itself (as
// node:cluster forks a worker) and one other Node process.
it("finds a process's children, and as workers only those running its own command line", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'child-pids-'));
  const script = join(dir, 'parent.cjs');
  writeFileSync(
    script,
    `const { spawn } = require('node:child_process');
     if (!process.env.CHILD) {
       spawn(process.execPath, process.argv.slice(1), { stdio: 'ignore', env: { ...process.env, CHILD: '1' } });
       spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
     }
     setInterval(() => {}, 1000);`,
  );
  const parent = spawn(process.execPath, [script], { stdio: 'ignore' });
  await once(parent, 'spawn');
  try {
    // Polled: between fork and exec a child still has its parent's command line.
    const counts = () => [childPids(parent.pid!).length, workerPids(parent.pid!).length];
    await expect.poll(counts, { timeout: 10_000 }).toEqual([2, 1]);
    expect(childPids(parent.pid!)).toContain(workerPids(parent.pid!)[0]);
  } finally {
    for (const pid of childPids(parent.pid!)) process.kill(pid, 'SIGKILL');
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

it('finds no workers of a process that is gone', async () => {
  const gone = spawn(process.execPath, ['-e', '']);
  await once(gone, 'exit');
  expect(workerPids(gone.pid!)).toEqual([]);
  expect(childPids(gone.pid!)).toEqual([]);
});
