import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort } from './ports.js';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('findFreePort', () => {
  it.runIf(process.platform === 'linux')('draws from below the ephemeral range outgoing connections use', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => findFreePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    // Random draws, not one fixed port handed to every caller.
    expect(new Set(ports).size).toBeGreaterThan(1);
  });

  it('gives a port that can be listened on', async () => {
    const server = await listen(await findFreePort());
    await new Promise((r) => server.close(r));
  });
});
