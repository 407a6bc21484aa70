// The machine's load average as every benchmark prints it beside its figures: these machines are shared, and a
// figure is the machine's as much as the server's.
import { loadavg } from 'node:os';

/** `load average 1.23 0.98 0.87`: over 1, 5 and 15 minutes. */
export function loadAverage(): string {
  return `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`;
}
