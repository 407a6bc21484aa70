import { connect, createServer, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { cpuOf, establishedTo, socketsTo } from './sampler.js';

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

it('reads a table line by line: the local port, state 01 only, and a short or cut-off line never borrows the next', () => {
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
  const table = [
    header,
    '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1', // listening
    '   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1', // server end
    '   2: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 3 1', // client end
    '   3: garbage',
    '10000: 0100007F:1F90 0100007F:C351 01 00000000:00000000 00:00000000 00000000     0        0 4 1', // wider slot
    '   4: 0100007F:1F90 0100007F:C352 0', // cut off before its state
  ].join('\n');
  expect(establishedTo(table, 0x1f90)).toBe(2);
  expect(establishedTo(table, 0xc350)).toBe(1);
  expect(establishedTo(header, 0x1f90)).toBe(0);
});
