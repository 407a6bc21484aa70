// Change capture: a logical replication stream (pgoutput) from a temporary slot of this process, decoded into
// committed transactions. The slot exists only while the stream is up; when the stream breaks, changes of the
// gap cannot be replayed, so listeners are told (`onReset`) and channels rejoin on a fresh slot.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { decodePgOutput, type Relation, type TupleValues } from './pgoutput.js';
import { PUBLICATION } from './migrations.js';

/**
 * Transactions committed under a replication origin named with this prefix (an auction's import or restore,
 * packages/auction-data) are bulk writes: not streamed to subscribers, who hear of them by one event instead.
 */
export const BULK_ORIGIN_PREFIX = 'auction_ops_bulk';

export interface Column {
  name: string;
  type: string;
}

export interface TableInfo {
  schema: string;
  table: string;
  columns: Column[];
  primaryKey: string[];
}

export interface Change {
  table: TableInfo;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  /** The new row (INSERT, UPDATE); the old row in full for DELETE (tables use REPLICA IDENTITY FULL). */
  record: TupleValues;
  old: TupleValues | null;
  commitTimestamp: string;
}

interface ChangeCaptureOptions {
  /** Owner connection URL: replication needs a role with REPLICATION (the embedded cluster's superuser has it). */
  url: string;
  /** Owner pool, for the catalog lookups that describe a relation. */
  sql: postgres.Sql;
  onTransaction(changes: Change[]): void;
  /** The stream broke: changes until it streams again are lost to current subscribers. */
  onReset(error: Error): void;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  /** Delay before reconnecting after the stream breaks; doubles up to 5 s (a restarted database is back in seconds). */
  retryMs?: number;
}

export interface ChangeCapture {
  readonly ready: boolean;
  /** Why capture cannot run at all (e.g. wal_level is not logical); undefined when it can. */
  readonly unavailable: string | undefined;
  /** Resolves when streaming, or when capture is unavailable. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

const STATUS_INTERVAL_MS = 10_000;

export function createChangeCapture(options: ChangeCaptureOptions): ChangeCapture {
  const meta = options.sql;
  let repl: postgres.Sql | undefined;
  let ready = false;
  let stopped = false;
  let unavailable: string | undefined;
  let retryMs = options.retryMs ?? 500;
  let statusTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  const relations = new Map<number, Relation>();
  const tables = new Map<number, TableInfo>();

  async function checkWalLevel(): Promise<string | undefined> {
    const [row] = await meta<{ wal_level: string }[]>`show wal_level`;
    if (row?.wal_level === 'logical') return undefined;
    return `table changes need wal_level=logical; this database runs with wal_level=${row?.wal_level}`;
  }

  async function describe(relation: Relation): Promise<TableInfo> {
    const oids = [...new Set(relation.columns.map((c) => c.typeOid))];
    const types = await meta<{ oid: number; typname: string }[]>`
      select oid::int, typname from pg_type where oid = any(${oids}::oid[])`;
    const typeName = new Map(types.map((t) => [t.oid, t.typname]));
    const keys = await meta<{ attname: string }[]>`
      select a.attname from pg_index i
        join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
       where i.indrelid = ${relation.id} and i.indisprimary order by array_position(i.indkey, a.attnum)`;
    return {
      schema: relation.schema,
      table: relation.table,
      columns: relation.columns.map((c) => ({ name: c.name, type: typeName.get(c.typeOid) ?? 'text' })),
      primaryKey: keys.map((k) => k.attname),
    };
  }

  async function connect(): Promise<void> {
    const slot = `auction_ops_rt_${randomBytes(6).toString('hex')}`;
    const sql = postgres(options.url, {
      max: 1,
      fetch_types: false,
      idle_timeout: 0,
      max_lifetime: 0,
      onnotice: () => {},
      connection: { replication: 'database', application_name: 'auction-ops-realtime' },
    });
    repl = sql;
    const [created] = await sql.unsafe(`CREATE_REPLICATION_SLOT ${slot} TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
    const stream = (await sql
      .unsafe(
        `START_REPLICATION SLOT ${slot} LOGICAL ${created!.consistent_point} ` +
          `(proto_version '1', publication_names '${PUBLICATION}')`,
      )
      .writable()) as unknown as NodeJS.ReadWriteStream;
    relations.clear();
    tables.clear();
    let flushed = lsnOf(created!.consistent_point as string);
    const sendStatus = (reply: boolean) => {
      const status = Buffer.alloc(34);
      status[0] = 0x72; // 'r' standby status update
      status.writeBigInt64BE(flushed, 1);
      status.writeBigInt64BE(flushed, 9);
      status.writeBigInt64BE(flushed, 17);
      status.writeBigInt64BE(BigInt(Date.now() - Date.UTC(2000, 0, 1)) * 1000n, 25);
      status[33] = reply ? 1 : 0;
      stream.write(status);
    };
    statusTimer = setInterval(() => sendStatus(false), STATUS_INTERVAL_MS);
    statusTimer.unref();
    ready = true;
    retryMs = options.retryMs ?? 500;
    options.log('info', 'realtime change capture streaming', { slot });
    consume(stream, {
      get flushed() {
        return flushed;
      },
      set flushed(v: bigint) {
        flushed = v;
      },
      sendStatus,
    });
  }

  // Each 'data' event is one CopyData message; reading the stream as an iterator would join messages together.
  // Messages are handled one at a time (describing a relation awaits a query), pausing the stream when behind.
  function consume(
    stream: NodeJS.ReadWriteStream,
    position: { flushed: bigint; sendStatus(reply: boolean): void },
  ): void {
    const queue: Buffer[] = [];
    let running = false;
    let pending: Change[] = [];
    let bulk = false;
    let commitTime = '';
    const fail = (error: Error) => {
      if (stopped || repl === undefined) return;
      broken(error);
    };
    stream.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      if (queue.length > 10_000) stream.pause();
      if (!running) void drain().catch(fail);
    });
    stream.on('error', (error: Error) => fail(error));
    stream.on('close', () => fail(new Error('replication stream ended')));

    async function drain(): Promise<void> {
      running = true;
      try {
        for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
          if (queue.length < 1_000 && stream.isPaused()) stream.resume();
          await handle(chunk);
        }
      } finally {
        running = false;
      }
    }

    async function handle(chunk: Buffer): Promise<void> {
      if (chunk[0] === 0x6b) {
        // 'k' keepalive: answer at once when the server asks
        if (chunk[17]) position.sendStatus(false);
        return;
      }
      if (chunk[0] !== 0x77) return; // only XLogData ('w') carries messages
      const message = decodePgOutput(chunk.subarray(25), relations);
      switch (message.tag) {
        case 'relation':
          relations.set(message.relation.id, message.relation);
          tables.set(message.relation.id, await describe(message.relation));
          break;
        case 'begin':
          pending = [];
          bulk = false;
          commitTime = message.commitTime.toISOString();
          break;
        case 'origin':
          bulk = message.name.startsWith(BULK_ORIGIN_PREFIX);
          break;
        case 'insert':
          pending.push(change(message.relationId, 'INSERT', message.row, null, commitTime));
          break;
        case 'update':
          pending.push(change(message.relationId, 'UPDATE', message.row, message.old, commitTime));
          break;
        case 'delete':
          pending.push(change(message.relationId, 'DELETE', message.old, message.old, commitTime));
          break;
        case 'commit':
          if (pending.length && !bulk) options.onTransaction(pending);
          pending = [];
          position.flushed = message.endLsn;
          break;
      }
    }
  }

  function change(
    relationId: number,
    type: Change['type'],
    record: TupleValues,
    old: TupleValues | null,
    commitTimestamp: string,
  ): Change {
    const table = tables.get(relationId);
    if (!table) throw new Error(`realtime: change for undescribed relation ${relationId}`);
    return { table, type, record, old, commitTimestamp };
  }

  function broken(error: Error): void {
    ready = false;
    clearInterval(statusTimer);
    const old = repl;
    repl = undefined;
    void old?.end({ timeout: 1 }).catch(() => {});
    options.log('warn', 'realtime change capture lost its stream; reconnecting', { error: error.message });
    options.onReset(error);
    retryTimer = setTimeout(() => void reconnect(), retryMs);
    retryMs = Math.min(retryMs * 2, 5_000);
  }

  async function reconnect(): Promise<void> {
    if (stopped) return;
    try {
      await connect();
    } catch (error) {
      broken(error as Error);
    }
  }

  return {
    get ready() {
      return ready;
    },
    get unavailable() {
      return unavailable;
    },
    async start() {
      unavailable = await checkWalLevel();
      if (unavailable) {
        options.log('warn', `realtime: ${unavailable}; postgres_changes subscriptions will be refused`);
        return;
      }
      await connect();
    },
    async stop() {
      stopped = true;
      ready = false;
      clearInterval(statusTimer);
      clearTimeout(retryTimer);
      await repl?.end({ timeout: 1 }).catch(() => {});
    },
  };
}

function lsnOf(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}
