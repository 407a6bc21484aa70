import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';
import { testExclude, testInclude } from './vitest.workspace.js';
import { LongestFirstSequencer } from './scripts/test-timing/sequencer.js';

// Test files mostly wait (on PostgreSQL, sockets, child processes), so the run keeps more files going than the
// machine has cores: twice the cores, at least 4 (docs/testing.md "Workers"). TEST_WORKERS overrides it.
const workers = Number(process.env.TEST_WORKERS) || Math.max(4, 2 * availableParallelism());

export default defineConfig({
  resolve: sourceAlias,
  test: {
    include: testInclude,
    exclude: testExclude,
    globalSetup: ['./packages/database/src/testing/global-setup.ts'],
    maxWorkers: workers,
    sequence: { sequencer: LongestFirstSequencer },
    // The ten slowest files and any file over its budget, printed at the end of each run.
    reporters: ['default', './scripts/test-timing/slow-files-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One project for the whole repository, and a worker runs file after file in one process, modules loaded once:
    // importing the server anew for each file was most of the suite's time, and a project per package gave each its
    // own workers, which transformed and imported the same modules again (the packages' tests took 23 % less CPU as
    // one project: 215 against 281 s). Files share a process, not their state: each makes its own databases, servers
    // and directories and closes them (docs/testing.md, "What a test may assume").
    isolate: false,
  },
});
