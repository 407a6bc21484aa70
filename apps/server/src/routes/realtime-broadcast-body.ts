// What POST /realtime/v1/api/broadcast accepts: the batch body `{messages: [{topic, event, payload, private}]}` and
// the `persist` / `persist[ttl]` query of the per-topic form, with messages that say what is wrong.
import type { HttpBroadcast } from '@auction-ops/realtime';
import { parseJsonObject } from '../http/read-body.js';

/** The messages of a batch body, or why the body is refused. */
export function parseBatch(text: string): HttpBroadcast[] | string {
  const body = parseJsonObject(text);
  if (!body || !Array.isArray(body.messages) || body.messages.length === 0)
    return 'Invalid broadcast: the body is {messages: [{topic, event, payload, private}]}';
  const messages: HttpBroadcast[] = [];
  for (const m of body.messages as unknown[]) {
    if (typeof m !== 'object' || m === null) return 'Invalid broadcast: each message is an object';
    const { topic, event, payload } = m as Record<string, unknown>;
    if (typeof topic !== 'string' || topic === '' || typeof event !== 'string')
      return 'Invalid broadcast: each message needs a topic and an event';
    messages.push({ topic, event, payload: payload ?? {}, private: (m as { private?: unknown }).private === true });
  }
  return messages;
}

/** `persist=true` or `persist[ttl]=<seconds>`; undefined without either; a string when malformed. */
export function parsePersist(query: URLSearchParams): { ttlSeconds?: number } | undefined | string {
  const ttl = query.get('persist[ttl]');
  if (ttl !== null) {
    const seconds = Number(ttl);
    return Number.isInteger(seconds) && seconds > 0 ? { ttlSeconds: seconds } : 'persist[ttl] is a positive integer';
  }
  return query.get('persist') === 'true' ? {} : undefined;
}
