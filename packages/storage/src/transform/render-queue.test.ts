import { describe, expect, it } from 'vitest';
import { RenderQueue } from './render-queue.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describe('RenderQueue', () => {
  it('runs at most `concurrency` jobs, lets `maxWaiting` wait and refuses the rest with 503', async () => {
    const queue = new RenderQueue(2, 1);
    const gates = [gate(), gate(), gate()];
    let started = 0;
    const jobs = gates.map((g, i) =>
      queue.run(async () => {
        started++;
        await g.opened;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(2);
    await expect(queue.run(async () => 'late')).rejects.toMatchObject({ status: 503 });
    gates[0]!.open();
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(3);
    gates[1]!.open();
    gates[2]!.open();
    expect(await Promise.all(jobs)).toEqual([0, 1, 2]);
    expect(queue.active).toBe(0);
  });

  it('frees the slot of a job that fails', async () => {
    const queue = new RenderQueue(1, 0);
    await expect(queue.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(async () => 'next')).toBe('next');
  });
});
