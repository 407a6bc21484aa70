// What the connections of one process share: token checks, subscribable tables, the change router, and the
// rooms (channels by topic) that broadcasts and presence reach, here and, through the relay, on other instances.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { TokenError, type Claims, type TokenVerifier } from '@auction-ops/auth-core';
import type { Channel } from './channel.js';
import type { ChangeCapture, Column } from './change-capture.js';
import type { ChangeRouter } from './change-router.js';
import { entry } from './map-entry.js';
import { isBinaryPayload, type BroadcastMeta } from './protocol.js';
import type { MessageStore } from './message-store.js';
import { PUBLICATION } from './migrations.js';
import { reasons } from './realtime-errors.js';
import type { PresenceMetas, Relay, RelayMessage } from './relay.js';
import { admissionRefusal, authorizeTopic, type PublicChannels, type TopicGrants } from './topic-authorization.js';

export interface RealtimeLimits {
  connectionsPerIp: number;
  channelsPerConnection: number;
  eventsPerSecond: number;
  maxPayloadBytes: number;
}

interface BroadcastOrigin {
  /** The sending channel: it receives its own message only with `self`. */
  sender?: Channel;
  /** Set for stored messages: their id travels with them. */
  meta?: BroadcastMeta;
}

export type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

const TABLES_TTL_MS = 5_000;

/** Frames this process sent to and received from clients (for metrics). */
interface FrameCounts {
  sent: number;
  received: number;
}

export class RealtimeHub {
  readonly frames: FrameCounts = { sent: 0, received: 0 };
  private readonly rooms = new Map<string, Set<Channel>>();
  private bindingIds = 0;
  private tables: { at: number; columns: Map<string, Column[]> } | undefined;
  private readonly presenceMetas = new WeakMap<Channel, Record<string, unknown>>();

  constructor(
    readonly limits: RealtimeLimits,
    readonly log: Log,
    private readonly publicChannels: PublicChannels,
    private readonly deps: {
      sql: postgres.Sql;
      verifier: TokenVerifier;
      router: ChangeRouter;
      capture: ChangeCapture;
      relay: Relay;
      store: MessageStore;
    },
  ) {}

  get store(): MessageStore {
    return this.deps.store;
  }

  async verify(token: string): Promise<{ claims: Claims } | { reason: string }> {
    try {
      return { claims: this.deps.verifier.cached(token) ?? (await this.deps.verifier.verify(token)) };
    } catch (error) {
      if (error instanceof TokenError && error.reason === 'expired') return { reason: reasons.expiredToken };
      return { reason: reasons.invalidToken((error as Error).message) };
    }
  }

  /** Why the claims may not join (or send to) a channel of this kind at all; undefined when policies decide. */
  admissionRefusal(claims: Claims, isPrivate: boolean): string | undefined {
    return admissionRefusal(this.publicChannels, claims, isPrivate);
  }

  /** What the policies on realtime.messages let the claims do on a private topic. */
  authorize(topic: string, claims: Claims): Promise<TopicGrants> {
    return authorizeTopic(this.deps.sql, topic, claims);
  }

  captureState(): string | undefined {
    const { capture } = this.deps;
    if (capture.unavailable) return reasons.captureUnavailable(capture.unavailable);
    return capture.ready ? undefined : reasons.captureNotReady;
  }

  /** Columns of a subscribable table ('*': any table of the schema, no columns); undefined if not subscribable. */
  async tableColumns(schema: string, table: string): Promise<Column[] | undefined> {
    const now = Date.now();
    if (!this.tables || now - this.tables.at > TABLES_TTL_MS) {
      const rows = await this.deps.sql<{ rel: string; name: string; type: string }[]>`
        select t.schemaname || '.' || t.tablename as rel, a.attname as name, ty.typname as type
          from pg_publication_tables t
          join pg_namespace n on n.nspname = t.schemaname
          join pg_class c on c.relnamespace = n.oid and c.relname = t.tablename
          join pg_attribute a on a.attrelid = c.oid
          join pg_type ty on ty.oid = a.atttypid
         where t.pubname = ${PUBLICATION} and a.attnum > 0 and not a.attisdropped`;
      const columns = new Map<string, Column[]>();
      for (const r of rows) {
        columns.set(r.rel, [...(columns.get(r.rel) ?? []), { name: r.name, type: r.type }]);
        columns.set(`${r.rel.split('.')[0]}.*`, []);
      }
      this.tables = { at: now, columns };
    }
    return this.tables.columns.get(`${schema}.${table}`);
  }

  nextBindingId(): number {
    return ++this.bindingIds;
  }

  attach(channel: Channel): void {
    for (const b of channel.bindings) this.deps.router.add(b);
    entry(this.rooms, channel.room, () => new Set()).add(channel);
  }

  /** A joined channel took a token with other claims (see ChangeRouter.identityChanged). */
  identityChanged(): void {
    this.deps.router.identityChanged();
  }

  detach(channel: Channel): void {
    for (const b of channel.bindings) this.deps.router.remove(b);
    const room = this.rooms.get(channel.room);
    room?.delete(channel);
    if (room?.size === 0) this.rooms.delete(channel.room);
    if (channel.presenceRef) void this.untrack(channel).catch((error) => this.logFailure('untrack', error));
  }

  /** A broadcast to a room (`private|realtime:<name>`) from a channel of this process or from HTTP (no sender). */
  async broadcast(room: string, event: string, payload: unknown, from: BroadcastOrigin = {}): Promise<void> {
    const message: RelayMessage = { kind: 'broadcast', topic: room, event, payload, meta: from.meta };
    this.deliver(message, from.sender);
    if (isBinaryPayload(payload)) {
      await this.deps.relay.publish({ ...message, payload: null, bytes: payload.bytes.toString('base64') });
    } else await this.deps.relay.publish(message);
  }

  /** Live broadcasts to the channel wait (in order) until release(): replayed messages go first. */
  hold(channel: Channel): void {
    channel.held = [];
  }

  release(channel: Channel): void {
    const held = channel.held ?? [];
    channel.held = undefined;
    for (const message of held) {
      if (!channel.joined) return;
      if (!channel.wasReplayed(message)) channel.deliverBroadcast(message);
    }
  }

  async track(channel: Channel, meta: Record<string, unknown>): Promise<void> {
    const leaves = this.leavesOf(channel);
    if (channel.presenceRef) await this.deps.relay.untrack(channel.room, [channel.presenceRef]);
    const ref = randomUUID();
    await this.deps.relay.track(channel.room, ref, channel.config.presenceKey, meta);
    channel.presenceRef = ref;
    this.presenceMetas.set(channel, meta);
    const joins = { [channel.config.presenceKey]: { metas: [{ ...meta, phx_ref: ref }] } };
    await this.presenceChanged({ kind: 'presence', topic: channel.room, joins, leaves });
  }

  async untrack(channel: Channel): Promise<void> {
    if (!channel.presenceRef) return;
    const leaves = this.leavesOf(channel);
    const ref = channel.presenceRef;
    channel.presenceRef = undefined;
    await this.deps.relay.untrack(channel.room, [ref]);
    await this.presenceChanged({ kind: 'presence', topic: channel.room, joins: {}, leaves });
  }

  presenceState(channel: Channel): Promise<PresenceMetas> {
    return this.deps.relay.presenceState(channel.room);
  }

  /** A message from another instance (or the sweep of a dead one). */
  received(message: RelayMessage): void {
    if (message.kind === 'broadcast' && message.bytes !== undefined)
      this.deliver({ ...message, payload: { bytes: Buffer.from(message.bytes, 'base64') } });
    else this.deliver(message);
  }

  private async presenceChanged(message: RelayMessage): Promise<void> {
    this.deliver(message);
    await this.deps.relay.publish(message);
  }

  private leavesOf(channel: Channel): PresenceMetas {
    const meta = this.presenceMetas.get(channel);
    if (!channel.presenceRef || !meta) return {};
    return { [channel.config.presenceKey]: { metas: [{ ...meta, phx_ref: channel.presenceRef }] } };
  }

  private deliver(message: RelayMessage, sender?: Channel): void {
    for (const channel of this.rooms.get(message.topic) ?? []) {
      if (!channel.joined) continue;
      if (message.kind === 'presence') {
        if (channel.config.presenceEnabled)
          channel.push('presence_diff', { joins: message.joins, leaves: message.leaves });
        continue;
      }
      if (channel === sender && !channel.config.self) continue;
      if (channel.held) channel.held.push(message);
      else if (!channel.wasReplayed(message)) channel.deliverBroadcast(message);
    }
  }

  private logFailure(what: string, error: unknown): void {
    this.log('warn', `realtime: ${what} failed`, { error: (error as Error).message });
  }
}
