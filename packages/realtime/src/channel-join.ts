// Joining a channel on a connection (`phx_join`): the token and the connection's limits, private topics' policies,
// postgres_changes bindings, broadcast replay and the first presence state; a rejoin replaces the old channel.
import type { Claims } from '@auction-ops/auth-core';
import { Channel, presenceKeyOf } from './channel.js';
import type { Binding, ChangeEvent } from './change-binding.js';
import { parseFilter } from './filters.js';
import { isObject, replyFrame, type BroadcastMessage, type Frame } from './protocol.js';
import { replayOf, type Replay } from './broadcast-options.js';
import { reasons } from './realtime-errors.js';
import { closeWithError, type SessionHost } from './session-host.js';
import { PUBLIC_GRANTS } from './topic-authorization.js';

const EVENTS = new Set<ChangeEvent>(['*', 'INSERT', 'UPDATE', 'DELETE']);

export class ChannelJoiner {
  /** Joins under way count against the channel limit too: joins sent together must not all pass the check. */
  private joining = 0;

  constructor(
    private readonly host: SessionHost,
    private readonly apiKeyClaims: Claims,
  ) {}

  async join(frame: Frame): Promise<void> {
    const { host } = this;
    const existing = host.channels.get(frame.topic);
    if (existing) host.drop(existing); // a rejoin replaces the old channel
    const limit = host.hub.limits.channelsPerConnection;
    if (host.channels.size + this.joining >= limit) {
      host.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reasons.tooManyChannels(limit)));
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
    const { host } = this;
    const { hub } = host;
    const fail = (reason: string) => host.send(replyFrame(frame.joinRef, frame.ref, frame.topic, 'error', reason));
    const payload = frame.payload;
    const config = isObject(payload.config) ? payload.config : {};
    let claims = this.apiKeyClaims;
    if (typeof payload.access_token === 'string' && payload.access_token) {
      const verified = await hub.verify(payload.access_token);
      if ('reason' in verified) return fail(verified.reason);
      claims = verified.claims;
    }
    const broadcast = isObject(config.broadcast) ? config.broadcast : {};
    const presence = isObject(config.presence) ? config.presence : {};
    const isPrivate = config.private === true;
    const refused = hub.admissionRefusal(claims, isPrivate);
    if (refused) return fail(refused);
    const replay = replayOf(broadcast.replay);
    if (replay === 'invalid') return fail(reasons.badReplay);
    if (replay && !isPrivate) return fail(reasons.replayNeedsPrivate);
    const grants = isPrivate ? await hub.authorize(frame.topic, claims) : PUBLIC_GRANTS;
    if (!grants.read.size) return fail(reasons.notMember(frame.topic.replace(/^realtime:/, '')));
    const channel = new Channel(
      host,
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
      (c) => {
        if (c.joined) closeWithError(host, c, reasons.expiredToken);
      },
    );
    channel.grants = grants;
    const requested = Array.isArray(config.postgres_changes) ? config.postgres_changes : [];
    const bindings = await this.bindingsOf(channel, requested);
    if (typeof bindings === 'string') return fail(bindings);
    channel.bindings = bindings;
    host.channels.set(frame.topic, channel);
    if (replay) hub.hold(channel);
    hub.attach(channel);
    // Read before the reply: a message the client (or anyone) sends once it sees SUBSCRIBED is stored after this
    // read, so it arrives live and never as replayed.
    const stored = replay ? await this.storedFor(channel, replay) : [];
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
    if (replay) this.replay(channel, stored);
    if (channel.config.presenceEnabled) channel.push('presence_state', await hub.presenceState(channel));
  }

  private async storedFor(channel: Channel, replay: Replay): Promise<Array<BroadcastMessage & { id: string }>> {
    try {
      return await this.host.hub.store.since(channel.topic.replace(/^realtime:/, ''), replay.since, replay.limit);
    } catch (error) {
      // The join fails (the session answers it with an error): the channel leaves, nothing is sent on it.
      this.host.drop(channel);
      throw error;
    }
  }

  // Stored messages first, then what arrived live meanwhile (held since before the read). A message stored while
  // the join read the store arrives once: its live copy, held or still to come, is skipped (Channel.replayed).
  private replay(channel: Channel, stored: Array<BroadcastMessage & { id: string }>): void {
    channel.replayed = new Set(stored.map((message) => message.id));
    for (const message of stored) if (channel.joined) channel.deliverBroadcast(message);
    this.host.hub.release(channel);
  }

  private async bindingsOf(channel: Channel, requested: unknown[]): Promise<Binding[] | string> {
    if (!requested.length) return [];
    const { hub } = this.host;
    const capture = hub.captureState();
    if (capture) return capture;
    const bindings: Binding[] = [];
    for (const entry of requested) {
      if (!isObject(entry)) return reasons.badBinding('each entry is an object');
      const event = String(entry.event ?? '*').toUpperCase() as ChangeEvent;
      if (!EVENTS.has(event)) return reasons.badBinding(reasons.badEvent);
      const schema = typeof entry.schema === 'string' ? entry.schema : 'public';
      const table = typeof entry.table === 'string' && entry.table !== '' ? entry.table : '*';
      const columns = await hub.tableColumns(schema, table);
      if (!columns) return reasons.badTable(schema, table);
      let filter: Binding['filter'];
      if (typeof entry.filter === 'string' && entry.filter !== '') {
        if (table === '*') return reasons.badBinding('a filter needs a table');
        const parsed = parseFilter(entry.filter, columns);
        if (typeof parsed === 'string') return reasons.badBinding(parsed);
        filter = parsed;
      }
      bindings.push({ id: hub.nextBindingId(), event, schema, table, filter, target: channel });
    }
    return bindings;
  }
}
