// The order files start in. The long files go first, longest first, whatever their project: they mostly wait on
// processes and clusters of their own, and started late they made the run's tail (a file started at minute 5 that
// runs 2 minutes). The rest stay together by project (a worker that does not isolate files runs the next file of
// the same project in the same process, with its modules already loaded), the projects with the most work first,
// the longest files first within each. Vitest's own sequencer orders projects by name. A file's length is its
// duration in the previous run (Vitest's results cache, node_modules/.vite), else its budget
// (scripts/test-timing/budgets.ts names the long files), else its size.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { budgetOf, DEFAULT_BUDGET_SECONDS } from './budgets.js';

/** A file that took longer than this in the previous run starts with the long files. */
const LONG_MS = 20_000;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root } = this.ctx.config;
    const cache = this.ctx.cache;
    const expected = (spec: TestSpecification): number => {
      const file = relative(root, spec.moduleId);
      const key = `${spec.project.name}:${file}`;
      const previous = cache.getFileTestResults(key);
      if (previous?.duration) return previous.duration;
      const budget = budgetOf(file);
      if (budget > DEFAULT_BUDGET_SECONDS) return budget * 1000;
      return (cache.getFileStats(key)?.size ?? 0) / 10; // about 1 ms per 10 bytes of test file
    };
    const length = new Map(files.map((spec) => [spec, expected(spec)]));
    const long = (spec: TestSpecification) =>
      budgetOf(relative(root, spec.moduleId)) > DEFAULT_BUDGET_SECONDS || length.get(spec)! > LONG_MS;
    const projectLength = new Map<string, number>();
    for (const [spec, ms] of length)
      projectLength.set(spec.project.name, (projectLength.get(spec.project.name) ?? 0) + ms);
    return [...files].sort(
      (a, b) =>
        Number(long(b)) - Number(long(a)) ||
        (long(a) ? 0 : projectLength.get(b.project.name)! - projectLength.get(a.project.name)!) ||
        (long(a) ? 0 : a.project.name.localeCompare(b.project.name)) ||
        length.get(b)! - length.get(a)!,
    );
  }
}
