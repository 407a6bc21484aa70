// A TCP relay in front of the server's embedded PostgreSQL, whose port is known only once the server has started
// it: each new connection goes to the port postmaster.pid names at that moment (the supervisor restarts the cluster
// on the same port). `cut()` drops every connection and refuses new ones until `restore()`: the network fault.
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { findFreePort } from '../../packages/database/src/index.js';
import { startChild } from './child.js';
import type { FromChild, ToRelay } from './messages.js';

export interface PgRelay {
  port: number;
  /** The process it runs in. */
  pid: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** The port of the cluster in `dataDir` (DATA_DIR/postgres/data/postmaster.pid, line 4). */
function clusterPort(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[3]);
}

export async function startPgRelay(dataDir: string): Promise<PgRelay> {
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => {});
        let target: number;
        try {
          target = clusterPort(dataDir);
        } catch {
          client.destroy();
          return;
        }
        const upstream = connect(target, '127.0.0.1');
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.pipe(upstream).pipe(client);
      }).listen(port, '127.0.0.1', () => resolve());
    });
  const stop = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  };
  await listen();
  return { port, pid: process.pid, cut: stop, restore: listen, close: stop };
}

/** The relay in a process of its own (relay-process.ts), driven from here. */
export async function startRelayProcess(dataDir: string, log: (line: string) => void): Promise<PgRelay> {
  const child = startChild('pg-relay', './relay-process.ts', log);
  await child.ready;
  child.send({ type: 'start', dataDir } satisfies ToRelay);
  const { port } = await child.started;
  let next = 0;
  const ask = (type: 'cut' | 'restore' | 'stop') =>
    new Promise<void>((resolve) => {
      const id = next++;
      const answered = (m: FromChild) => {
        if (m.type !== 'relayed' || m.id !== id) return;
        child.process.off('message', answered);
        resolve();
      };
      child.process.on('message', answered);
      child.send({ type, id } satisfies ToRelay);
    });
  return {
    port: port!,
    pid: child.pid,
    cut: () => ask('cut'),
    restore: () => ask('restore'),
    close: async () => {
      if (child.process.exitCode === null) await Promise.race([ask('stop'), child.done.catch(() => {})]);
      await child.stop();
    },
  };
}
