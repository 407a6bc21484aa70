// A Vitest reporter, beside the default one in vitest.config.ts: at the end of a run it prints the ten slowest test
// files (wall time from the file's start in its worker to its end: start-up, imports and tests) and names every
// file over its budget (docs/testing.md "Budgets"). Over budget is reported, not failed: on a shared machine a
// budget failure would be a failure by timing alone. The same figures go to .tmp/test-timings.json for comparisons.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { budgetOf } from './budgets.js';

interface FileTiming {
  file: string;
  wallMs: number;
  /** Tests and hooks alone (the rest is the worker's start-up and the file's imports). */
  testsMs: number;
  budgetMs: number;
}

export default class SlowFilesReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly timings: FileTiming[] = [];
  private runStart = performance.now();
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
    this.runStart = performance.now();
  }

  onTestModuleQueued(module: TestModule): void {
    this.started.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const start = this.started.get(module.moduleId);
    if (start === undefined) return;
    const file = relative(this.root, module.moduleId);
    this.timings.push({
      file,
      wallMs: Math.round(performance.now() - start),
      testsMs: Math.round(module.diagnostic().duration),
      budgetMs: budgetOf(file) * 1000,
    });
  }

  onTestRunEnd(): void {
    if (this.timings.length === 0) return;
    const slowest = [...this.timings].sort((a, b) => b.wallMs - a.wallMs);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const lines = ['', ' Slowest test files (wall: start-up, imports and tests; tests: tests and hooks alone)'];
    for (const t of slowest.slice(0, 10))
      lines.push(`   ${s(t.wallMs).padStart(8)}  ${s(t.testsMs).padStart(8)}  ${t.file}`);
    const over = slowest.filter((t) => t.wallMs > t.budgetMs);
    if (over.length > 0) {
      lines.push(' Over budget (docs/testing.md "Budgets"; a defect to fix, like a failing test):');
      for (const t of over) lines.push(`   ${s(t.wallMs).padStart(8)} > ${s(t.budgetMs)}  ${t.file}`);
    } else {
      lines.push(` Every file within its budget (${this.timings.length} files).`);
    }
    const wall = performance.now() - this.runStart;
    const sum = this.timings.reduce((total, t) => total + t.wallMs, 0);
    lines.push(
      ` Sum of file wall times ${s(sum)} in ${s(wall)}: ${(sum / wall).toFixed(1)} files at a time on average`,
    );
    console.log(lines.join('\n'));
    try {
      const dir = join(this.root, '.tmp');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'test-timings.json'),
        `${JSON.stringify({ wallMs: Math.round(wall), files: slowest }, null, 1)}\n`,
      );
    } catch {
      /* a read-only checkout: the printed list is the report */
    }
  }
}
