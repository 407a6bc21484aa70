// The events of a joined channel besides leaving: `access_token` (a new token, checked as a join would be),
// `broadcast` (relayed through the hub, stored first when asked to persist) and `presence` (track, untrack).
import type { Channel } from './channel.js';
import { isBinaryPayload, isObject, type BroadcastMeta, type Frame } from './protocol.js';
import { persistOf } from './broadcast-options.js';
import { reasons } from './realtime-errors.js';
import { closeWithError, type SessionHost } from './session-host.js';
import { PUBLIC_GRANTS } from './topic-authorization.js';

const nameOf = (channel: Channel) => channel.topic.replace(/^realtime:/, '');

export class ChannelEvents {
  constructor(private readonly host: SessionHost) {}

  async refreshToken(channel: Channel, token: unknown): Promise<void> {
    if (typeof token !== 'string' || !token) return;
    const { hub } = this.host;
    const verified = await hub.verify(token);
    if ('reason' in verified) return closeWithError(this.host, channel, verified.reason);
    // A private channel's policies are asked again with the new claims, as a join would ask them.
    const grants = channel.config.private ? await hub.authorize(channel.topic, verified.claims) : PUBLIC_GRANTS;
    if (!grants.read.size) return closeWithError(this.host, channel, reasons.notMemberAnymore(nameOf(channel)));
    channel.grants = grants;
    if (channel.refresh(verified.claims)) hub.identityChanged();
  }

  async broadcast(channel: Channel, frame: Frame): Promise<void> {
    const { hub } = this.host;
    const body = frame.payload;
    const event = typeof body.event === 'string' ? body.event : '';
    const size = isBinaryPayload(body.payload)
      ? body.payload.bytes.length
      : Buffer.byteLength(JSON.stringify(body.payload ?? {}));
    if (size > hub.limits.maxPayloadBytes) {
      channel.reply(frame.ref, 'error', { reason: reasons.payloadTooLarge(hub.limits.maxPayloadBytes) });
      return;
    }
    if (!channel.grants.write.has('broadcast')) {
      channel.reply(frame.ref, 'error', { reason: reasons.notAllowedToWrite(nameOf(channel), 'broadcast') });
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
      meta = { id: await hub.store.store(nameOf(channel), event, body.payload ?? {}, persist.ttlSeconds) };
    }
    await hub.broadcast(channel.room, event, body.payload ?? {}, { sender: channel, meta });
    if (channel.config.ack && frame.ref) channel.reply(frame.ref, 'ok');
  }

  async presence(channel: Channel, frame: Frame): Promise<void> {
    const { hub } = this.host;
    const event = frame.payload.event;
    if (!channel.grants.write.has('presence')) {
      channel.reply(frame.ref, 'error', { reason: reasons.notAllowedToWrite(nameOf(channel), 'presence') });
      return;
    }
    if (event === 'track') {
      const meta = isObject(frame.payload.payload) ? frame.payload.payload : {};
      if (Buffer.byteLength(JSON.stringify(meta)) > hub.limits.maxPayloadBytes) {
        channel.reply(frame.ref, 'error', { reason: reasons.payloadTooLarge(hub.limits.maxPayloadBytes) });
        return;
      }
      await hub.track(channel, meta);
    } else if (event === 'untrack') {
      await hub.untrack(channel);
    } else {
      channel.reply(frame.ref, 'error', { reason: reasons.badPresence });
      return;
    }
    channel.reply(frame.ref, 'ok');
  }
}
