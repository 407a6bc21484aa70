// Broadcasts sent over HTTP (POST /realtime/v1/api/broadcast, realtime-js's httpSend() and send() before a join):
// the sender is checked as a join would check it, within the same limits, then each message goes to its room and,
// with `persist`, into the message store first so that it carries its id.
import type { Claims } from '@auction-ops/auth-core';
import { roomOf } from './channel.js';
import type { MessageStore } from './message-store.js';
import { isBinaryPayload } from './protocol.js';
import { reasons } from './realtime-errors.js';
import type { RealtimeHub } from './realtime-hub.js';

export interface HttpBroadcast {
  /** The channel's name as the client gave it to channel(), without `realtime:`. */
  topic: string;
  event: string;
  /** JSON, or `{bytes}` for an application/octet-stream body. */
  payload: unknown;
  private: boolean;
}

export interface HttpBroadcastRequest {
  claims: Claims;
  clientIp: string;
  messages: readonly HttpBroadcast[];
  /** Store the messages for replay (private channels only), for at most `ttlSeconds` when given. */
  persist?: { ttlSeconds?: number };
}

// Statuses as Supabase Realtime's broadcast controllers answer: 403 unauthorized, 422 invalid, 429 over the rate.
export type HttpBroadcastResult = { status: 202 } | { status: 403 | 422 | 429; message: string };

export class HttpBroadcaster {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly hub: RealtimeHub,
    private readonly store: MessageStore,
  ) {}

  async send(request: HttpBroadcastRequest): Promise<HttpBroadcastResult> {
    const refused = await this.check(request);
    if (refused) return refused;
    for (const m of request.messages) {
      const meta = request.persist
        ? { id: await this.store.store(m.topic, m.event, m.payload, request.persist.ttlSeconds) }
        : undefined;
      await this.hub.broadcast(roomOf(`realtime:${m.topic}`, m.private), m.event, m.payload, { meta });
    }
    return { status: 202 };
  }

  // Every message is checked before any is sent: a refused request sends nothing.
  private async check({ claims, clientIp, messages, persist }: HttpBroadcastRequest) {
    const { limits } = this.hub;
    // Asked as for a private channel first: a connection that may join nothing is refused before any count.
    const anyRefusal = this.hub.admissionRefusal(claims, true);
    if (anyRefusal) return { status: 403, message: anyRefusal } as const;
    if (!this.withinRate(clientIp, messages.length))
      return { status: 429, message: reasons.tooManyMessages(limits.eventsPerSecond) } as const;
    const allowed = new Set<string>();
    for (const m of messages) {
      if (!m.topic) return { status: 422, message: reasons.badBroadcastBody('each message needs a topic') } as const;
      const size = isBinaryPayload(m.payload) ? m.payload.bytes.length : Buffer.byteLength(JSON.stringify(m.payload));
      if (size > limits.maxPayloadBytes)
        return { status: 422, message: reasons.payloadTooLarge(limits.maxPayloadBytes) } as const;
      if (persist && !m.private) return { status: 422, message: reasons.persistNeedsPrivate } as const;
      const refused = this.hub.admissionRefusal(claims, m.private);
      if (refused) return { status: 403, message: refused } as const;
      if (!m.private || allowed.has(m.topic)) continue;
      const grants = await this.hub.authorize(m.topic, claims);
      if (!grants.write.has('broadcast'))
        return { status: 403, message: reasons.notAllowedToWrite(m.topic, 'broadcast') } as const;
      allowed.add(m.topic);
    }
    return undefined;
  }

  /** REALTIME_MAX_EVENTS_PER_SECOND per client address, as a connection has it per connection. */
  private withinRate(ip: string, count: number): boolean {
    const now = Date.now();
    if (this.windows.size > 10_000) {
      for (const [key, w] of this.windows) if (now - w.start >= 1000) this.windows.delete(key);
    }
    let window = this.windows.get(ip);
    if (!window || now - window.start >= 1000) {
      window = { start: now, count: 0 };
      this.windows.set(ip, window);
    }
    // A refused request does not use up the second's budget.
    if (window.count + count > this.hub.limits.eventsPerSecond) return false;
    window.count += count;
    return true;
  }
}
