// What several server instances on one database share: broadcasts and presence changes travel by LISTEN/NOTIFY
// (through a table when too large for a notification), presences live in a table so a joiner on any instance
// sees everyone, and an instance that stops announcing itself is swept with its presences (and leaves sent).
import type postgres from 'postgres';
import type { BroadcastMeta } from './protocol.js';

export type PresenceMetas = Record<string, { metas: Record<string, unknown>[] }>;

export type RelayMessage =
  | { kind: 'broadcast'; topic: string; event: string; payload: unknown; bytes?: string; meta?: BroadcastMeta }
  | { kind: 'presence'; topic: string; joins: PresenceMetas; leaves: PresenceMetas };

interface RelayOptions {
  /** Owner pool: LISTEN needs a session of its own, and the shared tables are not for request roles. */
  sql: postgres.Sql;
  instanceId: string;
  onMessage(message: RelayMessage): void;
  /** The instance found itself swept by others while alive and announced itself again. */
  onRevived?(): Promise<void>;
  log: (level: 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  heartbeatMs?: number;
}

const CHANNEL = 'auction_ops_realtime';
// NOTIFY payloads stop at 8,000 bytes; larger messages go through realtime.relayed_messages.
const NOTIFY_LIMIT = 7_000;

export class Relay {
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly heartbeatMs: number;

  constructor(private readonly options: RelayOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 5_000;
  }

  async start(): Promise<void> {
    const { sql, instanceId } = this.options;
    await sql`insert into realtime.instances (id) values (${instanceId})
              on conflict (id) do update set seen_at = now()`;
    const listener = await sql.listen(CHANNEL, (text) => void this.received(text));
    this.unlisten = listener.unlisten;
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
    // Leaving cleanly: everyone present through this instance leaves now rather than at the next sweep.
    await this.sweep(this.options.sql`id = ${this.options.instanceId}`).catch(() => {});
  }

  async publish(message: RelayMessage): Promise<void> {
    const text = JSON.stringify({ o: this.options.instanceId, m: message });
    const { sql } = this.options;
    if (Buffer.byteLength(text) <= NOTIFY_LIMIT) {
      await sql`select pg_notify(${CHANNEL}, ${text})`;
      return;
    }
    const [row] = await sql<{ id: string }[]>`
      insert into realtime.relayed_messages (body) values (${text}::text::jsonb) returning id::text`;
    await sql`select pg_notify(${CHANNEL}, ${JSON.stringify({ o: this.options.instanceId, r: row!.id })})`;
  }

  async track(topic: string, ref: string, key: string, meta: Record<string, unknown>): Promise<void> {
    await this.options.sql`
      insert into realtime.presences (topic, presence_ref, key, meta, instance_id)
      values (${topic}, ${ref}, ${key}, ${JSON.stringify(meta)}::text::jsonb, ${this.options.instanceId})`;
  }

  async untrack(topic: string, refs: readonly string[]): Promise<void> {
    if (refs.length)
      await this.options.sql`delete from realtime.presences where topic = ${topic} and presence_ref = any(${refs})`;
  }

  async presenceState(topic: string): Promise<PresenceMetas> {
    const rows = await this.options.sql<Omit<PresenceRow, 'topic'>[]>`
      select key, presence_ref, meta from realtime.presences where topic = ${topic} order by presence_ref`;
    return groupMetas(rows);
  }

  private async received(text: string): Promise<void> {
    try {
      let envelope = JSON.parse(text) as { o: string; m?: RelayMessage; r?: string };
      if (envelope.o === this.options.instanceId) return; // delivered locally already
      if (envelope.r) {
        const [row] = await this.options.sql<{ body: typeof envelope }[]>`
          select body from realtime.relayed_messages where id = ${envelope.r}`;
        if (!row) return;
        envelope = row.body;
      }
      if (envelope.m) this.options.onMessage(envelope.m);
    } catch (error) {
      this.options.log('warn', 'realtime: a relayed message could not be read', { error: (error as Error).message });
    }
  }

  private async beat(): Promise<void> {
    const { sql, instanceId } = this.options;
    try {
      const [row] = await sql<{ inserted: boolean }[]>`
        insert into realtime.instances (id) values (${instanceId})
        on conflict (id) do update set seen_at = now() returning (xmax = 0) as inserted`;
      // Swept while alive (paused past the stale time): what hung on the instance row went with it.
      if (row?.inserted) await this.options.onRevived?.();
      const stale = `${Math.round((this.heartbeatMs * 4) / 1000)} seconds`;
      await this.sweep(sql`seen_at < now() - ${stale}::interval`);
      await sql`delete from realtime.relayed_messages where created_at < now() - interval '1 minute'`;
    } catch (error) {
      this.options.log('warn', 'realtime: instance heartbeat failed', { error: (error as Error).message });
    }
  }

  /** Removes the matching instances and their presences, and tells every instance who left. */
  private async sweep(which: postgres.PendingQuery<postgres.Row[]>): Promise<void> {
    const { sql } = this.options;
    const gone = await sql<PresenceRow[]>`
      with swept as (
        delete from realtime.instances where id in (
          select id from realtime.instances where ${which} for update skip locked)
        returning id)
      delete from realtime.presences p using swept where p.instance_id = swept.id
      returning p.topic, p.key, p.presence_ref, p.meta`;
    const byTopic = new Map<string, PresenceRow[]>();
    for (const row of gone) byTopic.set(row.topic, [...(byTopic.get(row.topic) ?? []), row]);
    for (const [topic, rows] of byTopic) {
      const message: RelayMessage = { kind: 'presence', topic, joins: {}, leaves: groupMetas(rows) };
      this.options.onMessage(message);
      await this.publish(message);
    }
  }
}

interface PresenceRow {
  topic: string;
  key: string;
  presence_ref: string;
  meta: Record<string, unknown>;
}

function groupMetas(rows: readonly Omit<PresenceRow, 'topic'>[]): PresenceMetas {
  const state: PresenceMetas = {};
  for (const row of rows) {
    state[row.key] ??= { metas: [] };
    state[row.key]!.metas.push({ ...row.meta, phx_ref: row.presence_ref });
  }
  return state;
}
