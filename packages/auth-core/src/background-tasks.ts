// Work that runs after the response (mail sending), so known and unknown addresses answer alike; a failure is
// logged, and drain() waits for what is still running (at shutdown, in tests).

export function createBackgroundTasks(log: (msg: string, fields: Record<string, unknown>) => void) {
  const pending = new Set<Promise<unknown>>();
  return {
    run(what: string, work: () => Promise<unknown>): void {
      const p = work()
        .catch((error) => log('background task failed', { task: what, error: String(error) }))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async drain(): Promise<void> {
      await Promise.all([...pending]);
    },
  };
}
