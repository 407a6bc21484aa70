// In-process counters of the failures a process survives: errors that escaped every handler and were caught by the
// last guard, request bodies ended for going idle, requests the client closed, and (in a cluster's primary) worker
// processes restarted. Plain numbers here; the metrics endpoint exports them.
export interface ProcessFaults {
  /** Errors caught by the last guard (uncaught exceptions and unhandled rejections). */
  escapedErrors: number;
  /** Request bodies that sent nothing for BODY_IDLE_TIMEOUT_MS and were closed. */
  bodyIdleTimeouts: number;
  /** Requests whose client closed the connection before the body was read. */
  clientAborts: number;
  /** Worker processes the cluster's primary restarted after they died. */
  workerRestarts: number;
}

const counts: ProcessFaults = { escapedErrors: 0, bodyIdleTimeouts: 0, clientAborts: 0, workerRestarts: 0 };

export function countFault(name: keyof ProcessFaults): void {
  counts[name]++;
}

/** A copy of this process's counters. */
export function processFaults(): ProcessFaults {
  return { ...counts };
}
