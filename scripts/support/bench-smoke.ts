// The smoke run of the benchmarks (`pnpm bench:smoke`, i.e. `pnpm bench --smoke`, which sets BENCH_SMOKE=1): every
// benchmark runs its whole path, servers, load processes and baselines included, but for about a second per
// measurement, on small data and in one round, so that CI finds out when a benchmark no longer runs. Its figures
// are printed as usual and mean nothing; nothing judges timings in either mode. Any error fails the run.
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** `full` in a real run, `smoke` in the smoke run. */
export function sized<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}
