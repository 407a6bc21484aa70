// What a connection's event handlers (channel-join.ts, channel-events.ts) need of the connection that runs them:
// its channels, its frames out, and the hub. Kept apart so that neither handler imports socket-session.ts.
import type { Channel } from './channel.js';
import type { Frame, Vsn } from './protocol.js';
import type { RealtimeHub } from './realtime-hub.js';

export interface SessionHost {
  readonly vsn: Vsn;
  readonly hub: RealtimeHub;
  /** The connection's joined channels, by topic. */
  readonly channels: Map<string, Channel>;
  send(frame: Frame): void;
  sendRaw(data: string | Buffer): void;
  /** The channel leaves: bindings and presence go, and nothing more is sent on it. */
  drop(channel: Channel): void;
}

/** The channel ends for the client with a `system` error saying why, then `phx_close`. */
export function closeWithError(host: SessionHost, channel: Channel, message: string): void {
  channel.push('system', { extension: 'system', status: 'error', message, channel: channel.topic });
  host.drop(channel);
  channel.push('phx_close', {});
}
