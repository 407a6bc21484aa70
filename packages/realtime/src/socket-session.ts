// One WebSocket connection: decodes frames, answers heartbeats, keeps the connection's rate limit, and hands each
// channel event to its handler (channel-join.ts for joins, channel-events.ts for the rest).
import type { WebSocket } from 'ws';
import type { Claims } from '@auction-ops/auth-core';
import type { Channel } from './channel.js';
import { ChannelEvents } from './channel-events.js';
import { ChannelJoiner } from './channel-join.js';
import { decodeBinary, decodeText, encodeText, FrameError, replyFrame, type Frame, type Vsn } from './protocol.js';
import { reasons } from './realtime-errors.js';
import type { RealtimeHub } from './realtime-hub.js';
import type { SessionHost } from './session-host.js';

export class SocketSession implements SessionHost {
  readonly channels = new Map<string, Channel>();
  private windowStart = Date.now();
  private windowCount = 0;
  private lastSeen = Date.now();
  private readonly joiner: ChannelJoiner;
  private readonly events: ChannelEvents;

  constructor(
    private readonly socket: WebSocket,
    readonly vsn: Vsn,
    apiKeyClaims: Claims,
    readonly hub: RealtimeHub,
  ) {
    this.joiner = new ChannelJoiner(this, apiKeyClaims);
    this.events = new ChannelEvents(this);
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

  /** The channel leaves: bindings and presence go, and nothing more is sent on it. */
  drop(channel: Channel): void {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    if (!channel.joined) return;
    channel.close();
    this.hub.detach(channel);
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
      const reason = reasons.tooManyMessages(this.hub.limits.eventsPerSecond);
      this.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reason));
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
    if (frame.event === 'phx_join') return this.joiner.join(frame);
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
        return this.events.refreshToken(channel, frame.payload.access_token);
      case 'broadcast':
        return this.events.broadcast(channel, frame);
      case 'presence':
        return this.events.presence(channel, frame);
      default:
        channel.reply(frame.ref, 'ok'); // events this server does not act on are acknowledged and dropped
    }
  }
}
