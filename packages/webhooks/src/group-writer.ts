// Group commit of delivery outcomes, so that under load one statement records many attempts.

/**
 * Group commit: while one batch is being written, outcomes that arrive wait and go together in the next statement.
 * At low load each outcome is written at once; under load one statement carries many.
 */
export function createGroupWriter<T, R>(write: (batch: Array<{ d: T; outcome: R }>) => Promise<void>, maxBatch = 200) {
  let pending: Array<{ d: T; outcome: R; done: (error?: unknown) => void }> = [];
  let writing = false;
  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        await write(batch);
        for (const x of batch) x.done();
      } catch (error) {
        for (const x of batch) x.done(error);
      }
    }
    writing = false;
  }
  return {
    record(d: T, outcome: R): Promise<void> {
      return new Promise((resolve, reject) => {
        pending.push({ d, outcome, done: (error) => (error === undefined ? resolve() : reject(error)) });
        if (!writing) void drain();
      });
    },
  };
}
