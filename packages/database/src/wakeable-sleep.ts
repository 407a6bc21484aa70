// The pause of a polling worker that a notification can cut short: LISTEN/NOTIFY calls wake(), the loop
// consumes the request before looking for work, and sleep() returns at once when a wake-up came meanwhile.
export interface WakeableSleep {
  wake(): void;
  /** Clears a pending wake-up; call it just before looking for work, so none that arrives later is lost. */
  consume(): void;
  sleep(ms: number): Promise<void>;
}

export function createWakeableSleep(): WakeableSleep {
  let requested = false;
  let wakeUp: (() => void) | undefined;
  return {
    wake() {
      requested = true;
      wakeUp?.();
    },
    consume() {
      requested = false;
    },
    sleep(ms) {
      if (requested) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      });
    },
  };
}
