// The upgrade tests' measured steps, printed at the end of a file: CI's log is where their cost is read.
export type Timings = Record<string, number>;

export function printTimings(timings: Timings, title: string): void {
  console.log(
    [`${title}:`, ...Object.entries(timings).map(([what, ms]) => `  ${what}: ${(ms / 1000).toFixed(1)} s`)].join('\n'),
  );
}
