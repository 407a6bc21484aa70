// Expo's push API over plain fetch at a configurable URL: chunks of 100 messages sent a few at a time, tickets
// mapped back to tokens, 429/5xx and network failures retried with exponential backoff (Retry-After honoured).
// A chunk that still fails yields ProviderError tickets, so callers can tell sent tokens from unsent ones.
import { chunk, providerErrorTickets, type PushMessage, type PushProvider, type PushTicket } from './push-provider.js';

export const EXPO_PUSH_URL = 'https://exp.host/--/api/v2/push/send';
/** Expo refuses requests of more than 100 messages (PUSH_TOO_MANY_NOTIFICATIONS). */
const EXPO_CHUNK = 100;

interface ExpoProviderOptions {
  url?: string;
  accessToken?: string;
  timeoutMs?: number;
  /** Retries of one chunk after the first attempt (429, 5xx, network errors). */
  retries?: number;
  /** First backoff delay; doubles each retry, with up to 20% jitter. */
  backoffMs?: number;
  /** Chunks in flight at once (Expo allows 600 notifications a second per project). */
  concurrency?: number;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

interface ExpoTicket {
  status?: string;
  id?: string;
  message?: string;
  details?: { error?: string };
}

class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export function createExpoProvider(options: ExpoProviderOptions = {}): PushProvider {
  const url = options.url ?? EXPO_PUSH_URL;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const concurrency = options.concurrency ?? 4;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-encoding': 'gzip, deflate',
    'content-type': 'application/json',
  };
  if (options.accessToken) headers.authorization = `Bearer ${options.accessToken}`;

  async function post(messages: PushMessage[]): Promise<PushTicket[]> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(messages),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new RetryableError(`push provider unreachable: ${(error as Error).message}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 429 || response.status >= 500) {
      throw new RetryableError(`push provider answered ${response.status}`, retryAfter(response.headers));
    }
    let body: { data?: ExpoTicket[]; errors?: Array<{ code?: string; message?: string }> };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`push provider answered ${response.status} without JSON`);
    }
    if (!response.ok || !Array.isArray(body.data)) {
      const first = body.errors?.[0];
      // A whole-request TOO_MANY_REQUESTS can come with a 200-range status too.
      if (first?.code === 'TOO_MANY_REQUESTS') throw new RetryableError('push provider: TOO_MANY_REQUESTS');
      throw new Error(
        `push provider answered ${response.status}: ${first?.code ?? ''} ${first?.message ?? 'no tickets'}`.trim(),
      );
    }
    const tickets = body.data;
    return messages.map((m, i) => {
      const t = tickets[i];
      if (t?.status === 'ok') return { token: m.to, status: 'ok', id: t.id };
      return {
        token: m.to,
        status: 'error',
        error: t?.details?.error ?? 'UnknownError',
        message: t?.message ?? 'no ticket for this message',
      };
    });
  }

  async function sendChunk(messages: PushMessage[]): Promise<PushTicket[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await post(messages);
      } catch (error) {
        const message = (error as Error).message;
        if (!(error instanceof RetryableError) || attempt >= retries) {
          options.log?.warn('push chunk failed', { error: message, messages: messages.length, attempts: attempt + 1 });
          return providerErrorTickets(messages, message);
        }
        const base = backoffMs * 2 ** attempt;
        const delay = Math.max(error.retryAfterMs ?? 0, base + Math.random() * base * 0.2);
        await new Promise((r) => setTimeout(r, Math.min(delay, 60_000)));
      }
    }
  }

  return {
    name: 'expo',
    async send(messages) {
      const chunks = chunk(messages, EXPO_CHUNK);
      const results: PushTicket[][] = new Array(chunks.length);
      let next = 0;
      const worker = async () => {
        while (next < chunks.length) {
          const i = next++;
          results[i] = await sendChunk(chunks[i]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, chunks.length) }, worker));
      return results.flat();
    },
  };
}

function retryAfter(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
