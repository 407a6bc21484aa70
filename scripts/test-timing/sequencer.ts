// The order files start in. Files of one project stay together (a worker that does not isolate files runs the next
// file of the same project in the same process, with its modules already loaded); the projects with the most work
// go first, and within a project the longest files: so the run does not end on one long file started last.
// Vitest's own sequencer orders projects by name. A file's length is its duration in the previous run (Vitest's
// results cache, node_modules/.vite), else its budget (scripts/test-timing/budgets.ts names the long files), else
// its size.
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
    const projectLength = new Map<string, number>();
    for (const [spec, ms] of length)
      projectLength.set(spec.project.name, (projectLength.get(spec.project.name) ?? 0) + ms);
    return [...files].sort(
      (a, b) =>
        projectLength.get(b.project.name)! - projectLength.get(a.project.name)! ||
        a.project.name.localeCompare(b.project.name) ||
        length.get(b)! - length.get(a)!,
    );
  }
}
