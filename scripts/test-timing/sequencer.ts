// The order files start in: longest first. The long files mostly wait on processes and clusters of their own, and
// started late they made the run's tail (a file started at minute 5 that runs 2 minutes); short files last fill
// the workers evenly to the end. A file's length is its duration in the previous run (Vitest's results cache,
// node_modules/.vite), else its budget (scripts/test-timing/budgets.ts names the long files), else its size.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { budgetOf, DEFAULT_BUDGET_SECONDS } from './budgets.js';

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
    return [...files].sort((a, b) => length.get(b)! - length.get(a)!);
  }
}
