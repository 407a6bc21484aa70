// The broadcast options a client sends: `config.broadcast.replay` at a join, and `persist` on a broadcast, read
// as realtime-js writes them and as Supabase Realtime bounds them.
import { MAX_REPLAY } from './message-store.js';
import { isObject } from './protocol.js';

export interface Replay {
  since: number;
  limit: number;
}

/** `persist`: true or `{}` (the longest retention), `{ttl}` in seconds, or invalid; anything else stores nothing. */
export function persistOf(value: unknown): { ttlSeconds?: number } | undefined | 'invalid' {
  if (value === true) return {};
  if (!isObject(value)) return undefined;
  if (value.ttl === undefined) return {};
  return Number.isInteger(value.ttl) && (value.ttl as number) > 0 ? { ttlSeconds: value.ttl as number } : 'invalid';
}

/** `config.broadcast.replay`: absent, `{since, limit?}` (limit 1 to 25, as Supabase Realtime clamps it), or invalid. */
export function replayOf(value: unknown): Replay | undefined | 'invalid' {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value) || !Number.isInteger(value.since)) return 'invalid';
  const limit = value.limit ?? MAX_REPLAY;
  if (!Number.isInteger(limit)) return 'invalid';
  return { since: value.since as number, limit: Math.max(1, Math.min(limit as number, MAX_REPLAY)) };
}
