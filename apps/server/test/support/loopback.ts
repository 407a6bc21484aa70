// Small helpers the end-to-end tests share: a loopback HTTP server for fakes and receivers, waiting for a
// condition, and the standard output of a CLI command run in process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 (any free port) that hands each request to `onRequest` once its body is read. */
export async function startLoopbackServer(
  onRequest: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void,
): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => onRequest(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Polls `check` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What `run` writes to standard output (a CLI command called in process). */
export async function stdoutOf(run: () => Promise<unknown>): Promise<string> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return out;
}
