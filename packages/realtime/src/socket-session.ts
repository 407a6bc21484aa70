// One WebSocket connection: decodes frames, answers heartbeats, and runs each channel event (join, leave,
// access_token, broadcast, presence) against the hub, within the connection's limits.
import type { WebSocket } from 'ws';
import type { Claims } from '@auction-ops/auth-core';
import { Channel, presenceKeyOf } from './channel.js';
import type { Binding, ChangeEvent } from './change-router.js';
import { parseFilter } from './filters.js';
import {
  decodeBinary,
  decodeText,
  encodeText,
  FrameError,
  isBinaryPayload,
  isObject,
  type BroadcastMeta,
  type Frame,
  type Vsn,
} from './protocol.js';
import { persistOf, replayOf, type Replay } from './broadcast-options.js';
import { reasons } from './realtime-errors.js';
import type { RealtimeHub } from './realtime-hub.js';
import { PUBLIC_GRANTS } from './topic-authorization.js';

const EVENTS = new Set<ChangeEvent>(['*', 'INSERT', 'UPDATE', 'DELETE']);

export class SocketSession {
  private readonly channels = new Map<string, Channel>();
  private windowStart = Date.now();
  private windowCount = 0;
  private lastSeen = Date.now();
  private joining = 0;

  constructor(
    private readonly socket: WebSocket,
    readonly vsn: Vsn,
    private readonly apiKeyClaims: Claims,
    private readonly hub: RealtimeHub,
  ) {
    socket.on('message', (data, isBinary) => void this.received(data as Buffer, isBinary));
  }

  /** No frame (not even a heartbeat) for this long: the client is gone. */
  idleFor(now: number): number {
    return now - this.lastSeen;
  }

  send(frame: Frame): void {
    this.sendRaw(encodeText(frame, this.vsn));
  }

  sendRaw(data: string | Buffer): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.hub.frames.sent++;
    this.socket.send(data);
  }

  get channelCount(): number {
    return this.channels.size;
  }

  close(code?: number, reason?: string): void {
    for (const channel of [...this.channels.values()]) this.drop(channel);
    this.socket.close(code, reason);
  }

  /** The connection closed: its channels leave (and their presences with them). */
  closed(): void {
    for (const channel of [...this.channels.values()]) this.drop(channel);
  }

  /** Change capture lost changes: channels with bindings are errored so the client rejoins on a fresh stream. */
  captureLost(): void {
    for (const channel of [...this.channels.values()]) {
      if (!channel.bindings.length) continue;
      channel.push('system', { extension: 'postgres_changes', status: 'error', message: reasons.captureLost });
      channel.push('phx_error', {});
      this.drop(channel);
    }
  }

  private async received(data: Buffer, isBinary: boolean): Promise<void> {
    this.lastSeen = Date.now();
    this.hub.frames.received++;
    let frame: Frame;
    try {
      frame = isBinary ? decodeBinary(data) : decodeText(data.toString('utf8'), this.vsn);
    } catch (error) {
      if (error instanceof FrameError)
        this.send(replyFrame(null, null, 'phoenix', 'error', reasons.badFrame(error.message)));
      return;
    }
    if (frame.topic === 'phoenix' && frame.event === 'heartbeat') {
      this.send(replyFrame(frame.joinRef, frame.ref, 'phoenix', 'ok'));
      return;
    }
    if (!this.withinRate()) {
      this.send(
        replyFrame(
          frame.joinRef,
          frame.ref,
          frame.topic,
          'error',
          reasons.tooManyMessages(this.hub.limits.eventsPerSecond),
        ),
      );
      return;
    }
    try {
      await this.dispatch(frame);
    } catch (error) {
      this.hub.log('error', 'realtime: event failed', { event: frame.event, error: (error as Error).message });
      this.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', 'internal error'));
    }
  }

  private withinRate(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    return ++this.windowCount <= this.hub.limits.eventsPerSecond;
  }

  private async dispatch(frame: Frame): Promise<void> {
    if (frame.event === 'phx_join') return this.join(frame);
    const channel = this.channels.get(frame.topic);
    if (!channel) {
      this.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reasons.unmatchedTopic));
      return;
    }
    switch (frame.event) {
      case 'phx_leave':
        channel.reply(frame.ref, 'ok');
        this.drop(channel);
        channel.push('phx_close', {});
        return;
      case 'access_token':
        return this.refreshToken(channel, frame.payload.access_token);
      case 'broadcast':
        return this.broadcast(channel, frame);
      case 'presence':
        return this.presence(channel, frame);
      default:
        channel.reply(frame.ref, 'ok'); // events this server does not act on are acknowledged and dropped
    }
  }

  // Joins under way count against the channel limit too: joins sent together must not all pass the check.
  private async join(frame: Frame): Promise<void> {
    const existing = this.channels.get(frame.topic);
    if (existing) this.drop(existing); // a rejoin replaces the old channel
    if (this.channels.size + this.joining >= this.hub.limits.channelsPerConnection) {
      const reason = reasons.tooManyChannels(this.hub.limits.channelsPerConnection);
      this.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reason));
      return;
    }
    this.joining++;
    try {
      await this.admit(frame);
    } finally {
      this.joining--;
    }
  }

  private async admit(frame: Frame): Promise<void> {
    const fail = (reason: string) => this.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reason));
    const payload = frame.payload;
    const config = isObject(payload.config) ? payload.config : {};
    let claims = this.apiKeyClaims;
    if (typeof payload.access_token === 'string' && payload.access_token) {
      const verified = await this.hub.verify(payload.access_token);
      if ('reason' in verified) return fail(verified.reason);
      claims = verified.claims;
    }
    const broadcast = isObject(config.broadcast) ? config.broadcast : {};
    const presence = isObject(config.presence) ? config.presence : {};
    const isPrivate = config.private === true;
    const refused = this.hub.admissionRefusal(claims, isPrivate);
    if (refused) return fail(refused);
    const replay = replayOf(broadcast.replay);
    if (replay === 'invalid') return fail(reasons.badReplay);
    if (replay && !isPrivate) return fail(reasons.replayNeedsPrivate);
    const grants = isPrivate ? await this.hub.authorize(frame.topic, claims) : PUBLIC_GRANTS;
    if (!grants.read.size) return fail(reasons.notMember(frame.topic.replace(/^realtime:/, '')));
    const channel = new Channel(
      this,
      frame.topic,
      frame.joinRef,
      {
        self: broadcast.self === true,
        ack: broadcast.ack === true,
        presenceKey: presenceKeyOf(presence),
        presenceEnabled: presence.enabled === true,
        private: isPrivate,
      },
      claims,
      (c) => this.expired(c),
    );
    channel.grants = grants;
    const requested = Array.isArray(config.postgres_changes) ? config.postgres_changes : [];
    const bindings = await this.bindingsOf(channel, requested);
    if (typeof bindings === 'string') return fail(bindings);
    channel.bindings = bindings;
    this.channels.set(frame.topic, channel);
    if (replay) this.hub.hold(channel);
    this.hub.attach(channel);
    // Registered before the reply: every change committed after the client sees SUBSCRIBED is matched.
    channel.reply(frame.ref, 'ok', {
      postgres_changes: requested.map((entry, i) => ({ ...(entry as object), id: bindings[i]!.id })),
    });
    if (bindings.length) {
      channel.push('system', {
        extension: 'postgres_changes',
        status: 'ok',
        message: 'Subscribed to PostgreSQL',
        channel: frame.topic.replace(/^realtime:/, ''),
      });
    }
    if (replay) await this.replay(channel, replay);
    if (channel.config.presenceEnabled) channel.push('presence_state', await this.hub.presenceState(channel));
  }

  // Stored messages first, then what arrived live meanwhile (held since before the reply).
  private async replay(channel: Channel, replay: Replay): Promise<void> {
    const replayed = new Set<string>();
    try {
      const stored = await this.hub.store.since(channel.topic.replace(/^realtime:/, ''), replay.since, replay.limit);
      for (const message of stored) {
        replayed.add(message.id);
        if (channel.joined) channel.deliverBroadcast(message);
      }
    } finally {
      this.hub.release(channel, replayed);
    }
  }

  private async bindingsOf(channel: Channel, requested: unknown[]): Promise<Binding[] | string> {
    if (!requested.length) return [];
    const capture = this.hub.captureState();
    if (capture) return capture;
    const bindings: Binding[] = [];
    for (const entry of requested) {
      if (!isObject(entry)) return reasons.badBinding('each entry is an object');
      const event = String(entry.event ?? '*').toUpperCase() as ChangeEvent;
      if (!EVENTS.has(event)) return reasons.badBinding(reasons.badEvent);
      const schema = typeof entry.schema === 'string' ? entry.schema : 'public';
      const table = typeof entry.table === 'string' && entry.table !== '' ? entry.table : '*';
      const columns = await this.hub.tableColumns(schema, table);
      if (!columns) return reasons.badTable(schema, table);
      let filter: Binding['filter'];
      if (typeof entry.filter === 'string' && entry.filter !== '') {
        if (table === '*') return reasons.badBinding('a filter needs a table');
        const parsed = parseFilter(entry.filter, columns);
        if (typeof parsed === 'string') return reasons.badBinding(parsed);
        filter = parsed;
      }
      bindings.push({ id: this.hub.nextBindingId(), event, schema, table, filter, target: channel });
    }
    return bindings;
  }

  private async refreshToken(channel: Channel, token: unknown): Promise<void> {
    if (typeof token !== 'string' || !token) return;
    const verified = await this.hub.verify(token);
    if ('reason' in verified) return this.closeWithError(channel, verified.reason);
    // A private channel's policies are asked again with the new claims, as a join would ask them.
    const grants = channel.config.private ? await this.hub.authorize(channel.topic, verified.claims) : PUBLIC_GRANTS;
    if (!grants.read.size)
      return this.closeWithError(channel, reasons.notMemberAnymore(channel.topic.replace(/^realtime:/, '')));
    channel.grants = grants;
    channel.refresh(verified.claims);
  }

  private expired(channel: Channel): void {
    if (channel.joined) this.closeWithError(channel, reasons.expiredToken);
  }

  /** The channel ends for the client with a `system` error saying why, then `phx_close`. */
  private closeWithError(channel: Channel, message: string): void {
    channel.push('system', { extension: 'system', status: 'error', message, channel: channel.topic });
    this.drop(channel);
    channel.push('phx_close', {});
  }

  private async broadcast(channel: Channel, frame: Frame): Promise<void> {
    const body = frame.payload;
    const event = typeof body.event === 'string' ? body.event : '';
    const size = isBinaryPayload(body.payload)
      ? body.payload.bytes.length
      : Buffer.byteLength(JSON.stringify(body.payload ?? {}));
    if (size > this.hub.limits.maxPayloadBytes) {
      channel.reply(frame.ref, 'error', { reason: reasons.payloadTooLarge(this.hub.limits.maxPayloadBytes) });
      return;
    }
    if (!channel.grants.write.has('broadcast')) {
      channel.reply(frame.ref, 'error', {
        reason: reasons.notAllowedToWrite(channel.topic.replace(/^realtime:/, ''), 'broadcast'),
      });
      return;
    }
    // realtime-js (vsn 2.0.0) sends `persist` in the binary frame's metadata.
    const persist = persistOf(isObject(body.meta) ? body.meta.persist : body.persist);
    let meta: BroadcastMeta | undefined;
    if (persist) {
      if (!channel.config.private || persist === 'invalid') {
        // realtime-js shows `error` of a refused persist to the sender.
        const refused = channel.config.private ? reasons.badTtl : reasons.persistNeedsPrivate;
        channel.reply(frame.ref, 'error', { reason: refused, error: refused });
        return;
      }
      const name = channel.topic.replace(/^realtime:/, '');
      meta = { id: await this.hub.store.store(name, event, body.payload ?? {}, persist.ttlSeconds) };
    }
    await this.hub.broadcast(channel.room, event, body.payload ?? {}, { sender: channel, meta });
    if (channel.config.ack && frame.ref) channel.reply(frame.ref, 'ok');
  }

  private async presence(channel: Channel, frame: Frame): Promise<void> {
    const event = frame.payload.event;
    if (!channel.grants.write.has('presence')) {
      channel.reply(frame.ref, 'error', {
        reason: reasons.notAllowedToWrite(channel.topic.replace(/^realtime:/, ''), 'presence'),
      });
      return;
    }
    if (event === 'track') {
      const meta = isObject(frame.payload.payload) ? frame.payload.payload : {};
      if (Buffer.byteLength(JSON.stringify(meta)) > this.hub.limits.maxPayloadBytes) {
        channel.reply(frame.ref, 'error', { reason: reasons.payloadTooLarge(this.hub.limits.maxPayloadBytes) });
        return;
      }
      await this.hub.track(channel, meta);
    } else if (event === 'untrack') {
      await this.hub.untrack(channel);
    } else {
      channel.reply(frame.ref, 'error', { reason: reasons.badPresence });
      return;
    }
    channel.reply(frame.ref, 'ok');
  }

  /** The channel leaves: bindings and presence go, and nothing more is sent on it. */
  private drop(channel: Channel): void {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    if (!channel.joined) return;
    channel.close();
    this.hub.detach(channel);
  }
}

function replyFrame(
  joinRef: string | null,
  ref: string | null,
  topic: string,
  status: 'ok' | 'error',
  reason?: string,
): Frame {
  return {
    joinRef,
    ref,
    topic,
    event: 'phx_reply',
    payload: { status, response: reason === undefined ? {} : { reason } },
  };
}
