import { connect, createServer, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { cpuOf, socketsTo } from './sampler.js';

it('counts the established connections to a port at the server’s end, and only those', async () => {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const clients: Socket[] = [];
  try {
    expect(socketsTo(port)).toBe(0);
    for (let i = 0; i < 3; i++)
      clients.push(
        await new Promise<Socket>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => resolve(socket));
        }),
      );
    await expect.poll(() => socketsTo(port)).toBe(3);
    clients.pop()!.destroy();
    await expect.poll(() => socketsTo(port)).toBe(2);
  } finally {
    for (const c of clients) c.destroy();
    for (const a of accepted) a.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('reads a process’s CPU seconds from /proc, and 0 for a process that is gone', () => {
  const before = cpuOf(process.pid);
  const start = process.cpuUsage();
  // Busy for 200 ms of this process's own CPU time (not of the clock: a loaded machine only makes it take longer).
  while (process.cpuUsage(start).user < 200_000) Math.sqrt(Math.random());
  expect(cpuOf(process.pid) - before).toBeGreaterThanOrEqual(0.15);
  expect(cpuOf(2 ** 22 + 1)).toBe(0);
});
