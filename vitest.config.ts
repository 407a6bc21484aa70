import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.js';
import { LongestFirstSequencer } from './scripts/test-timing/sequencer.js';

// Test files mostly wait (on PostgreSQL, sockets, child processes), so the run keeps more files going than the
// machine has cores: twice the cores, at least 4 (docs/testing.md "Workers"). TEST_WORKERS overrides it.
const workers = Number(process.env.TEST_WORKERS) || Math.max(4, 2 * availableParallelism());

export default defineConfig({
  test: {
    projects,
    globalSetup: ['./packages/database/src/testing/global-setup.ts'],
    maxWorkers: workers,
    sequence: { sequencer: LongestFirstSequencer },
    // The ten slowest files and any file over its budget, printed at the end of each run.
    reporters: ['default', './scripts/test-timing/slow-files-reporter.ts'],
  },
});
