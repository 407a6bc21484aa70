// The wall-time budget of each test file of `pnpm test`, in seconds (docs/testing.md "Budgets"): what a file may take
// from its start in a worker to its end, in the full run on CI's 2-core machine (files in parallel). A file over
// its budget is named at the end of the run (scripts/test-timing/slow-files-reporter.ts). Raising a budget is a
// change to review like any other: say in the commit what the file waits for and why it cannot wait less.
export const DEFAULT_BUDGET_SECONDS = 30;

/** Files that start whole servers, clusters or commands as processes, with the reason for each. */
const BUDGETS: Record<string, number> = {};

export function budgetOf(file: string): number {
  return BUDGETS[file] ?? DEFAULT_BUDGET_SECONDS;
}
