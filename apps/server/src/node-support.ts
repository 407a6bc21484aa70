// Which Node the server asks for. Node 20 still runs it, but its support ended in April 2026 and the server needs
// about a fifth less CPU per request on the current LTS (README, "Running in production"; docs/scaling.md).
import type { Logger } from './logger.js';

/** The oldest Node major still supported by its makers (Node 22's maintenance ends in April 2027). */
const OLDEST_MAINTAINED_MAJOR = 22;

/** Warns, once at start, when `version` (`process.versions.node`) is a Node past its end of life. */
export function warnOfOldNode(log: Logger, version: string): void {
  const major = Number(version.split('.')[0]);
  if (major >= OLDEST_MAINTAINED_MAJOR) return;
  log.warn('this Node is past its end of life; run the server on the current LTS, Node 24', { node: `v${version}` });
}
