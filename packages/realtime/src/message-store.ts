// Broadcasts stored for replay (realtime.messages): written by `persist` sends on private channels, read by joins
// with `config.broadcast.replay` (with those sent from SQL by realtime.send), and kept within a maximum age (day
// partitions dropped whole) and a maximum count per topic.
import type postgres from 'postgres';
import { isBinaryPayload, type BroadcastMessage } from './protocol.js';

export interface RetentionLimits {
  /** The longest a message is kept; a `persist.ttl` beyond it is cut to it. */
  maxAgeSeconds: number;
  /** Each topic keeps only its newest messages up to this count. */
  maxMessagesPerTopic: number;
}

/** Replays send at most this many messages, as Supabase Realtime does. */
export const MAX_REPLAY = 25;
const SWEEP_MS = 60_000;

interface StoredRow {
  id: string;
  event: string;
  payload: unknown;
  binary_payload: Buffer | null;
}

export class MessageStore {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Owner pool: stored and replayed messages were authorized at the send and the join, not row by row. */
    private readonly sql: postgres.Sql,
    readonly retention: RetentionLimits,
    private readonly log: (level: 'warn', message: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** Makes the coming days' partitions at once (a server may start on a database migrated days ago). */
  async start(): Promise<void> {
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Stores a broadcast of a private topic (`<name>`, without `realtime:`); returns its id. */
  async store(topic: string, event: string, payload: unknown, ttlSeconds?: number): Promise<string> {
    const ttl = Math.min(ttlSeconds ?? this.retention.maxAgeSeconds, this.retention.maxAgeSeconds);
    const bytes = isBinaryPayload(payload) ? payload.bytes : null;
    const json = bytes ? null : JSON.stringify(payload ?? {});
    const [row] = await this.sql<{ id: string }[]>`
      insert into realtime.messages (topic, event, payload, binary_payload, private, expires_at)
      values (${topic}, ${event}, ${json}::text::jsonb, ${bytes}, true, now() + make_interval(secs => ${ttl}))
      returning id::text`;
    // Beyond the count, the oldest of the topic go now rather than at the next sweep.
    await this.sql`
      delete from realtime.messages where id in (
        select id from realtime.messages where topic = ${topic} and private
         order by inserted_at desc offset ${this.retention.maxMessagesPerTopic})`;
    return row!.id;
  }

  /** The newest `limit` unexpired messages of the topic stored at or after `since` (ms), oldest first. */
  async since(topic: string, since: number, limit: number): Promise<Array<BroadcastMessage & { id: string }>> {
    const rows = await this.sql<StoredRow[]>`
      select * from (
        select id::text, event, payload, binary_payload, inserted_at from realtime.messages
         where topic = ${topic} and private and extension = 'broadcast'
           and (expires_at is null or expires_at > now())
           and inserted_at >= to_timestamp(${since / 1000})
         order by inserted_at desc limit ${Math.min(limit, MAX_REPLAY)}) newest
       order by inserted_at`;
    return rows.map((r) => ({
      id: r.id,
      event: r.event,
      payload: r.binary_payload ? { bytes: r.binary_payload } : r.payload,
      meta: { replayed: true, id: r.id },
    }));
  }

  private async sweep(): Promise<void> {
    try {
      // Whole days past the maximum age go with their partition; within a day, rows past their ttl one by one.
      await this.sql`select realtime.maintain_partitions(${this.retention.maxAgeSeconds})`;
      await this.sql`delete from realtime.messages where expires_at <= now()`;
    } catch (error) {
      this.log('warn', 'realtime: sweeping stored messages failed', { error: (error as Error).message });
    }
  }
}
