// The load side of the auth verification benchmark, in a process of its own so the client's work does not share
// the server's event loop: runs one job file's requests (`{url, anonKey, concurrency, requests}`), `concurrency`
// at a time, and prints `{seconds, n}` as JSON on stdout. A request is `{kind: 'password', email, password}`,
// `{kind: 'otp', email, token}` or `{kind: 'mfa', accessToken, factorId, secret}` (challenge, then verify).
// Usage: node --import tsx scripts/support/auth-load-client.ts <job.json>
import { readFileSync } from 'node:fs';
import { TOTP } from 'otpauth';

type Request =
  | { kind: 'password'; email: string; password: string }
  | { kind: 'otp'; email: string; token: string }
  | { kind: 'mfa'; accessToken: string; factorId: string; secret: string };

const job = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  url: string;
  anonKey: string;
  concurrency: number;
  requests: Request[];
};

async function post(path: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { apikey: job.anonKey, 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${job.url}/auth/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function perform(request: Request): Promise<void> {
  if (request.kind === 'password') {
    await post('/token?grant_type=password', { email: request.email, password: request.password });
  } else if (request.kind === 'otp') {
    await post('/verify', { type: 'email', email: request.email, token: request.token });
  } else {
    const challenge = await post(`/factors/${request.factorId}/challenge`, {}, request.accessToken);
    const code = new TOTP({ secret: request.secret, digits: 6, period: 30 }).generate();
    await post(`/factors/${request.factorId}/verify`, { challenge_id: challenge.id, code }, request.accessToken);
  }
}

const queue = [...job.requests];
const t0 = performance.now();
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await perform(next);
  }),
);
console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000, n: job.requests.length }));
