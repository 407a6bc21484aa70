// The generators' HTTP side: one request, timed, with the client timeout that makes a hang visible, its outcome
// recorded by kind, and for an error answer whether its body has the contract's shape for the path family
// (spec section 7: data {code, details, hint, message}, storage {statusCode, error, message}, functions
// {error, code}, auth {error, error_description} or {code, msg}).
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

export function httpClient(options: {
  url: string;
  anonKey: string;
  timeoutMs: number;
  record: (r: RequestRecord) => void;
}) {
  return async function request(
    kind: string,
    method: string,
    path: string,
    init: {
      token: string;
      json?: unknown;
      body?: RequestInit['body'];
      headers?: Record<string, string>;
      timeoutMs?: number;
    },
  ): Promise<Answer> {
    const t = Date.now();
    const started = performance.now();
    const headers: Record<string, string> = {
      apikey: options.anonKey,
      authorization: `Bearer ${init.token}`,
      ...init.headers,
    };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const failed = (error: unknown, answered?: number): Answer => {
      const ms = performance.now() - started;
      const e = error as Error & { cause?: { code?: string; message?: string } };
      const cause = `${e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`;
      // Cut off after the status line (headers came, the body did not) is told apart from no answer at all.
      const detail =
        e.name === 'TimeoutError'
          ? 'client timeout (hang)'
          : answered === undefined
            ? cause
            : `answer ${answered} cut off: ${cause}`;
      options.record({ t, kind, ms, status: 0, contract: false, detail });
      return { status: 0, body: undefined, text: detail };
    };
    let res: Response;
    try {
      res = await fetch(`${options.url}${path}`, {
        method,
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
        signal: AbortSignal.timeout(init.timeoutMs ?? options.timeoutMs),
      });
    } catch (error) {
      return failed(error);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      return failed(error, res.status);
    }
    const ms = performance.now() - started;
    const ok = res.status >= 200 && res.status < 300;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    options.record({
      t,
      kind,
      ms,
      status: res.status,
      ...(ok ? {} : { contract: contractShaped(path, text), detail: text.slice(0, 200) }),
    });
    return { status: res.status, body, text };
  };
}

export type Request = ReturnType<typeof httpClient>;

export const ok = (a: Answer) => a.status >= 200 && a.status < 300;
