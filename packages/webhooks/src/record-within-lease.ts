// An attempt's outcome must reach the database while the lease is still ours. When the write fails (the database
// restarting, a connection dropped), it is tried again until it succeeds or the lease is about to lapse: giving up at
// once would leave the delivery queued, and once the lease expired it would be sent again to a receiver that already
// had it.
interface RecordRetry {
  /** Epoch ms after which a late write could race a dispatcher that took the delivery over. */
  deadline: number;
  retryMs: number;
  /** The dispatcher was killed: stop trying. */
  stopped: () => boolean;
  onRetry: (error: unknown) => void;
}

export async function recordWithinLease(write: () => Promise<void>, retry: RecordRetry): Promise<void> {
  for (;;) {
    try {
      await write();
      return;
    } catch (error) {
      if (retry.stopped() || Date.now() + retry.retryMs >= retry.deadline) throw error;
      retry.onRetry(error);
      await new Promise((r) => setTimeout(r, retry.retryMs));
    }
  }
}
