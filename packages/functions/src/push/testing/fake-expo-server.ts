// A fake of Expo's push API on loopback for tests and the benchmark: records every request, answers tickets in
// message order, and can be told to answer DeviceNotRegistered for some tokens, fail with a status for the next
// requests, or hold requests unanswered (a provider that hangs while the server is killed).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ExpoRequest {
  at: number;
  authorization?: string;
  messages: Array<{
    to: string;
    title?: string;
    body?: string;
    data?: Record<string, unknown>;
    priority?: string;
    sound?: string;
  }>;
  /** The status this request was answered with (undefined while held). */
  status?: number;
}

export interface FakeExpo {
  url: string;
  requests: ExpoRequest[];
  /** Messages of requests answered 200 with an ok ticket. */
  delivered(): ExpoRequest['messages'];
  unregistered: Set<string>;
  /** Answer the next `n` requests with this status (500, 429 ...). */
  failNext(n: number, status?: number): void;
  /** Hold requests without answering until release() (or forever). */
  hold(on: boolean): void;
  close(): Promise<void>;
}

export async function startFakeExpo(): Promise<FakeExpo> {
  const requests: ExpoRequest[] = [];
  const unregistered = new Set<string>();
  let failures = 0;
  let failStatus = 500;
  let holding = false;
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(raw || '[]');
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      const entry: ExpoRequest = { at: Date.now(), authorization: req.headers.authorization, messages };
      requests.push(entry);
      if (holding) return;
      if (failures > 0) {
        failures--;
        entry.status = failStatus;
        res.writeHead(failStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ code: failStatus === 429 ? 'TOO_MANY_REQUESTS' : 'INTERNAL' }] }));
        return;
      }
      if (messages.length > 100) {
        entry.status = 400;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ code: 'PUSH_TOO_MANY_NOTIFICATIONS', message: 'over 100' }] }));
        return;
      }
      entry.status = 200;
      const data = messages.map((m: { to: string }) =>
        unregistered.has(m.to)
          ? {
              status: 'error',
              message: `"${m.to}" is not a registered push notification recipient`,
              details: { error: 'DeviceNotRegistered' },
            }
          : { status: 'ok', id: `ticket-${++seq}` },
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data }));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/--/api/v2/push/send`,
    requests,
    delivered: () =>
      requests.filter((r) => r.status === 200).flatMap((r) => r.messages.filter((m) => !unregistered.has(m.to))),
    unregistered,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    hold(on) {
      holding = on;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
