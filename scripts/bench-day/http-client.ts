// The generators' HTTP side: one request, timed, with the client timeout that makes a hang visible, its outcome
// recorded by kind, and for an error answer whether its body has the contract's shape for the path family
// (spec section 7: data {code, details, hint, message}, storage {statusCode, error, message}, functions
// {error, code}, auth {error, error_description} or {code, msg}).
import http from 'node:http';
import type { RequestRecord } from './messages.js';

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

export function contractShaped(path: string, text: string): boolean {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null) return false;
  const has = (...keys: string[]) => keys.every((k) => k in body);
  if (path.startsWith('/rest/v1')) return has('code', 'details', 'hint', 'message');
  if (path.startsWith('/storage/v1')) return has('statusCode', 'error', 'message');
  if (path.startsWith('/functions/v1')) return has('error', 'code');
  if (path.startsWith('/auth/v1')) return has('error', 'error_description') || has('code', 'msg');
  return true;
}

/** The answer of one request on the agent's keep-alive connections, or the error that ended it (with the status when
 * the headers had come). */
function send(
  agent: http.Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | string | undefined,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    const req = http.request(url, { method, headers, agent }, (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: status!, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (error) => fail(error));
      // A connection that closed before the body's end (a killed worker) is a reset, not a wait for the timeout.
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('the answer ended early'), { code: 'ECONNRESET' }));
      });
    });
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(Object.assign(error, { answered: status }));
    };
    const timer = setTimeout(() => {
      const error = new Error(`no answer within ${timeoutMs} ms`);
      error.name = 'TimeoutError';
      req.destroy(error);
    }, timeoutMs);
    req.on('error', fail);
    req.end(body);
  });
}

/** A multipart body: the bytes and content type fetch would send for this form. */
async function encodeForm(form: FormData): Promise<{ body: Buffer; type: string }> {
  const encoded = new Request('http://form.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

/**
 * One generator's client: node:http on keep-alive connections (as many as requests in flight, like fetch's pool),
 * which costs a fraction of fetch's CPU per request. The generators share the machine with the server, so what they
 * spend is taken from it.
 */
export function httpClient(options: {
  url: string;
  anonKey: string;
  timeoutMs: number;
  record: (r: RequestRecord) => void;
}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  return async function request(
    kind: string,
    method: string,
    path: string,
    init: {
      token: string;
      json?: unknown;
      body?: Buffer | string | FormData;
      headers?: Record<string, string>;
      timeoutMs?: number;
    },
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      apikey: options.anonKey,
      authorization: `Bearer ${init.token}`,
      ...init.headers,
    };
    let body: Buffer | string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.body instanceof FormData) {
      const form = await encodeForm(init.body);
      headers['content-type'] = form.type;
      body = form.body;
    } else body = init.body;
    const t = Date.now();
    const started = performance.now();
    let answer: { status: number; text: string };
    try {
      answer = await send(
        agent,
        new URL(`${options.url}${path}`),
        method,
        headers,
        body,
        init.timeoutMs ?? options.timeoutMs,
      );
    } catch (error) {
      const ms = performance.now() - started;
      const e = error as Error & { code?: string; answered?: number };
      const cause = `${e.code ?? e.name}: ${e.message}`;
      // Cut off after the status line (headers came, the body did not) is told apart from no answer at all.
      const detail =
        e.name === 'TimeoutError'
          ? 'client timeout (hang)'
          : e.answered === undefined
            ? cause
            : `answer ${e.answered} cut off: ${cause}`;
      options.record({ t, kind, ms, status: 0, contract: false, detail });
      return { status: 0, body: undefined, text: detail };
    }
    const ms = performance.now() - started;
    const { status, text } = answer;
    const ok = status >= 200 && status < 300;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    options.record({
      t,
      kind,
      ms,
      status,
      ...(ok ? {} : { contract: contractShaped(path, text), detail: text.slice(0, 200) }),
    });
    return { status, body: parsed, text };
  };
}

export type Request = ReturnType<typeof httpClient>;

export const ok = (a: Answer) => a.status >= 200 && a.status < 300;
