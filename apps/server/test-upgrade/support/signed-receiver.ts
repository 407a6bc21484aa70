// A webhook receiver on loopback that is down (503) until told otherwise, and then accepts only deliveries whose
// signatures verify as docs/webhooks.md tells receivers to: HMAC-SHA256 over the raw body (X-Webhook-Signature) and
// the Standard Webhooks signature over "<id>.<timestamp>.<body>", compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  id: string;
  event: string;
  body: Record<string, unknown>;
}

export interface SignedReceiver {
  url: string;
  /** Requests answered 503 while down, and requests that failed verification. */
  refused: number;
  rejected: number;
  delivered: Delivery[];
  up(): void;
  close(): Promise<void>;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function verifies(secret: string, headers: http.IncomingHttpHeaders, raw: string): boolean {
  const hex = createHmac('sha256', secret).update(raw).digest('hex');
  const legacy = String(headers['x-webhook-signature'] ?? '').split(',');
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`;
  const standard = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  const fresh = Math.abs(Date.now() / 1000 - Number(headers['webhook-timestamp'])) < 300;
  return (
    fresh &&
    legacy.some((s) => same(s.trim(), `sha256=${hex}`)) &&
    String(headers['webhook-signature'] ?? '')
      .split(' ')
      .some((s) => same(s, standard))
  );
}

export async function startSignedReceiver(secret: string): Promise<SignedReceiver> {
  let isUp = false;
  const receiver = { refused: 0, rejected: 0, delivered: [] as Delivery[] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!isUp) {
        receiver.refused++;
        res.writeHead(503).end();
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      if (!verifies(secret, req.headers, raw)) {
        receiver.rejected++;
        res.writeHead(401).end();
        return;
      }
      receiver.delivered.push({
        id: String(req.headers['webhook-id']),
        event: String(req.headers['x-webhook-event']),
        body: JSON.parse(raw),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    up: () => {
      isUp = true;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
