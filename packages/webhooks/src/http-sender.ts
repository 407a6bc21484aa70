// One HTTP POST to a webhook endpoint: SSRF-guarded connection (the resolved and the connected address are both
// checked), an overall timeout, redirects never followed (a 3xx is a failure), and the first 2 KB of the response
// body kept for the attempt log. Nothing here throws: every outcome is a SendResult.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { AddressGuard } from './ssrf-guard.js';

const RESPONSE_BODY_LIMIT = 2048;
// Bodies larger than this are not drained for keep-alive reuse: the connection is dropped instead.
const DRAIN_LIMIT = 64 * 1024;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface SendResult {
  ok: boolean;
  status?: number;
  retryAfter?: string;
  body?: string;
  error?: string;
  timeMs: number;
}

interface HttpSenderOptions {
  guard: AddressGuard;
  allowHttp: boolean;
  /** Keep-alive sockets per origin. */
  maxSockets?: number;
  /** Extra trusted CA certificates (PEM) for receivers on a private PKI; the system's are trusted regardless. */
  ca?: string;
}

interface HttpSender {
  send(request: SendRequest): Promise<SendResult>;
  close(): void;
}

class GuardError extends Error {}

/** A DNS lookup that fails when any resolved address is refused by the guard. */
function guardedLookup(guard: AddressGuard): LookupFunction {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      for (const a of addresses) {
        const reason = guard.check(a.address);
        if (reason)
          return callback(new GuardError(`refused: ${hostname} resolves to ${reason.replace(/^address /, '')}`));
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

export function createHttpSender(options: HttpSenderOptions): HttpSender {
  const lookup = guardedLookup(options.guard);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, lookup };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent({
    ...agentOptions,
    ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
  });
  const checked = new WeakSet<Socket>();

  function send(req: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return Promise.resolve({ ok: false, error: 'invalid url', timeMs: 0 });
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
      return Promise.resolve({ ok: false, error: `refused: ${url.protocol} urls are not allowed`, timeMs: 0 });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const reason = options.guard.check(host);
      if (reason) return Promise.resolve({ ok: false, error: `refused: ${reason}`, timeMs: 0 });
    }
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'timeMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        resolve({ ...result, timeMs: elapsed() });
      };
      const request = client.request(url, {
        method: 'POST',
        headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body).toString() },
        agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
      });
      const timer = setTimeout(() => {
        finish({ ok: false, error: `timeout after ${req.timeoutMs} ms` });
        request.destroy();
      }, req.timeoutMs);
      const onAbort = () => {
        finish({ ok: false, error: 'aborted: dispatcher stopping' });
        request.destroy();
      };
      req.signal?.addEventListener('abort', onAbort);
      request.on('socket', (socket: Socket) => {
        // The address actually connected to: covers IP-literal hosts (no lookup) and anything the lookup missed.
        const verify = () => {
          if (checked.has(socket)) return;
          const reason = socket.remoteAddress ? options.guard.check(socket.remoteAddress) : 'no remote address';
          if (reason) {
            finish({ ok: false, error: `refused: ${reason}` });
            request.destroy();
            return;
          }
          checked.add(socket);
        };
        if (socket.remoteAddress && !socket.connecting) verify();
        else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', verify);
      });
      request.on('error', (error: Error) => {
        finish({
          ok: false,
          error: error instanceof GuardError ? error.message : `connection error: ${error.message}`,
        });
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        let seen = 0;
        const done = () => {
          // Postgres text holds no NUL; a multi-byte character cut at the limit decodes to U+FFFD and is dropped.
          let body = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '');
          while (Buffer.byteLength(body) > RESPONSE_BODY_LIMIT) body = body.slice(0, -1);
          const retryAfter = response.headers['retry-after'];
          const base = { status, body, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
          if (status >= 200 && status < 300) finish({ ...base, ok: true });
          else if (status >= 300 && status < 400) {
            finish({
              ...base,
              ok: false,
              error: `redirect not followed (${status} to ${String(response.headers.location ?? 'nowhere')})`,
            });
          } else finish({ ...base, ok: false, error: `HTTP ${status}` });
        };
        response.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (kept < RESPONSE_BODY_LIMIT) {
            const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (seen > DRAIN_LIMIT) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', (error) => finish({ ok: false, status, error: `response error: ${error.message}` }));
      });
      request.end(req.body);
    });
  }

  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
