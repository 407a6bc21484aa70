// Free TCP ports on loopback, for the embedded cluster and for servers started with PORT=0 (and by tests).
//
// A port found free is only taken once something listens on it, seconds later for a cluster or a server. The
// kernel's own free ports (listen on port 0) come from the ephemeral range, the same range every outgoing
// connection's local port comes from: on a busy host one of those connections took the port in that window and the
// listen failed with EADDRINUSE. So ports are drawn at random from below the ephemeral range, which outgoing
// connections never use; the kernel's choice is the fallback when no such port is free.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port of the range drawn from: below it are the well-known and commonly configured ones. */
const LOWEST = 10_000;
const ATTEMPTS = 20;

export async function findFreePort(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let i = 0; i < ATTEMPTS && below > LOWEST; i++) {
    const candidate = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (await isFree(candidate)) return candidate;
  }
  return listenOnce(0);
}

/** The first port of the kernel's ephemeral range (Linux's setting; IANA's 49152 elsewhere). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 49_152;
  } catch {
    return 49_152;
  }
}

async function isFree(port: number): Promise<boolean> {
  try {
    await listenOnce(port);
    return true;
  } catch {
    return false;
  }
}

/** Listens on `port` of loopback and closes again; resolves with the port listened on. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}
