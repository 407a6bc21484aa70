// One joined channel of one connection: who joined (role and claims, refreshed by `access_token`), its settings
// (broadcast self/ack, presence key), its postgres_changes bindings, and the token expiry that closes it.
import { randomUUID } from 'node:crypto';
import type { Claims } from '@auction-ops/auth-core';
import type { Binding, ChangeTarget } from './change-binding.js';
import type { Identity } from './subscriber-identity.js';
import { encodeBinaryBroadcast, isBinaryPayload, type BroadcastMessage, type Frame } from './protocol.js';
import { reasons } from './realtime-errors.js';
import { PUBLIC_GRANTS, type TopicGrants } from './topic-authorization.js';

interface ChannelConfig {
  self: boolean;
  ack: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  private: boolean;
}

interface ChannelOwner {
  send(frame: Frame): void;
  sendRaw(data: string | Buffer): void;
  readonly vsn: '1.0.0' | '2.0.0';
}

export class Channel implements ChangeTarget {
  identity: Identity;
  bindings: Binding[] = [];
  presenceRef: string | undefined;
  joined = true;
  /** Broadcasts waiting while stored messages are replayed to this channel (see RealtimeHub.hold). */
  held: BroadcastMessage[] | undefined;
  /** The ids of the stored messages replayed at the join (at most 25): their live copies are not sent again. */
  replayed: ReadonlySet<string> | undefined;
  /** What the policies let this connection do on the topic: checked at the join and at each new token. */
  grants: TopicGrants = PUBLIC_GRANTS;
  private expiry: NodeJS.Timeout | undefined;
  private readonly changePrefix: string;

  constructor(
    readonly owner: ChannelOwner,
    /** The topic as the client names it, `realtime:<name>`. */
    readonly topic: string,
    readonly joinRef: string | null,
    readonly config: ChannelConfig,
    claims: Claims,
    private readonly onExpire: (channel: Channel) => void,
  ) {
    this.identity = identityOf(claims);
    this.watchExpiry(claims);
    const head = [joinRef, null, topic, 'postgres_changes'];
    this.changePrefix =
      owner.vsn === '2.0.0'
        ? `${JSON.stringify(head).slice(0, -1)},{"ids":`
        : `{"join_ref":${JSON.stringify(joinRef)},"ref":null,"topic":${JSON.stringify(topic)},` +
          `"event":"postgres_changes","payload":{"ids":`;
  }

  /** Topic of the shared registry: private and public channels of one name are different rooms. */
  get room(): string {
    return roomOf(this.topic, this.config.private);
  }

  push(event: string, payload: Record<string, unknown>, ref: string | null = null): void {
    this.owner.send({ joinRef: this.joinRef, ref, topic: this.topic, event, payload });
  }

  reply(ref: string | null, status: 'ok' | 'error', response: Record<string, unknown> = {}): void {
    this.push('phx_reply', { status, response }, ref);
  }

  /** A live copy of a message this channel received replayed at its join (stored and broadcast meanwhile). */
  wasReplayed(message: BroadcastMessage): boolean {
    return message.meta?.id !== undefined && this.replayed?.has(message.meta.id) === true;
  }

  deliverBroadcast(message: BroadcastMessage): void {
    const { event, payload, meta } = message;
    if (!isBinaryPayload(payload)) {
      this.push('broadcast', { type: 'broadcast', event, payload, ...(meta ? { meta } : {}) });
    } else if (this.owner.vsn === '2.0.0') {
      this.owner.sendRaw(encodeBinaryBroadcast(this.topic, event, payload.bytes, meta));
    } else {
      // vsn 1.0.0 frames are JSON text and cannot carry bytes: the client is told what it missed and why.
      this.push('system', {
        extension: 'broadcast',
        status: 'error',
        message: reasons.bytesNeedVsn2(event),
        channel: this.topic.replace(/^realtime:/, ''),
      });
    }
  }

  deliverChange(ids: readonly number[], data: string): void {
    // Built by concatenation: the change's JSON is shared by every subscriber it reaches.
    this.owner.sendRaw(
      `${this.changePrefix}${JSON.stringify(ids)},"data":${data}}${this.owner.vsn === '2.0.0' ? ']' : '}'}`,
    );
  }

  /** Takes a new token's claims; answers whether the identity changed (other claims, not only other times). */
  refresh(claims: Claims): boolean {
    const next = identityOf(claims);
    // A token refreshed with the same claims but for its times keeps the identity object and takes the new claims
    // in place: the router's grouping by identity object, and the access plan made for it, hold (at thousands of
    // subscribers refreshing hourly, rebuilding them was a rebuild a second). Other claims make a new identity.
    const changed = next.key !== this.identity.key;
    if (changed) this.identity = next;
    else this.identity.claims = next.claims;
    this.watchExpiry(claims);
    return changed;
  }

  close(): void {
    this.joined = false;
    clearTimeout(this.expiry);
  }

  private watchExpiry(claims: Claims): void {
    clearTimeout(this.expiry);
    if (typeof claims.exp !== 'number') return;
    // setTimeout holds at most about 24.8 days; a token living longer is checked again then.
    const ms = Math.min(claims.exp * 1000 - Date.now(), 2 ** 31 - 1);
    this.expiry = setTimeout(() => this.onExpire(this), Math.max(ms, 0));
    this.expiry.unref();
  }
}

/** Rooms are named by topic (`realtime:<name>`) and privacy: the registry key shared by joins and HTTP sends. */
export function roomOf(topic: string, isPrivate: boolean): string {
  return `${isPrivate ? 'private' : 'public'}|${topic}`;
}

function identityOf(claims: Claims): Identity {
  const role = claims.role === 'service_role' || claims.role === 'authenticated' ? claims.role : 'anon';
  const { exp: _exp, iat: _iat, ...stable } = claims;
  const claimsJson = JSON.stringify(claims);
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  return { role, claims: claimsJson, key: `${role}|${JSON.stringify(stable)}`, sub };
}

export function presenceKeyOf(config: Record<string, unknown> | undefined): string {
  const key = config?.key;
  return typeof key === 'string' && key !== '' ? key : randomUUID();
}
