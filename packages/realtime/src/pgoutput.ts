// Decoder for PostgreSQL's logical replication output plugin `pgoutput` (protocol version 1): the messages a
// replication stream carries inside XLogData frames. Values stay in Postgres's text form; callers type them.
interface RelationColumn {
  name: string;
  typeOid: number;
}

export interface Relation {
  id: number;
  schema: string;
  table: string;
  columns: RelationColumn[];
}

/** A row as text values by column name; `undefined` marks an unchanged TOASTed value the stream left out. */
export type TupleValues = Record<string, string | null | undefined>;

type PgOutputMessage =
  | { tag: 'begin'; finalLsn: bigint; commitTime: Date; xid: number }
  | { tag: 'commit'; commitLsn: bigint; endLsn: bigint; commitTime: Date }
  | { tag: 'relation'; relation: Relation }
  | { tag: 'insert'; relationId: number; row: TupleValues }
  | { tag: 'update'; relationId: number; row: TupleValues; old: TupleValues | null }
  | { tag: 'delete'; relationId: number; old: TupleValues }
  | { tag: 'origin'; name: string }
  | { tag: 'other' };

// Postgres timestamps count microseconds from 2000-01-01.
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const pgTime = (micros: bigint): Date => new Date(PG_EPOCH_MS + Number(micros / 1000n));

/** Decodes one pgoutput message. `relations` resolves column names for row messages. */
export function decodePgOutput(buf: Buffer, relations: ReadonlyMap<number, Relation>): PgOutputMessage {
  const r = new Reader(buf, 1);
  switch (buf[0]) {
    case 0x42: // 'B' begin
      return { tag: 'begin', finalLsn: r.int64(), commitTime: pgTime(r.int64()), xid: r.int32() };
    case 0x43: {
      // 'C' commit
      r.skip(1);
      return { tag: 'commit', commitLsn: r.int64(), endLsn: r.int64(), commitTime: pgTime(r.int64()) };
    }
    case 0x52: {
      // 'R' relation
      const id = r.int32();
      const schema = r.cstring();
      const table = r.cstring();
      r.skip(1); // replica identity setting
      const count = r.int16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < count; i++) {
        r.skip(1); // flags: part of the replica identity
        const name = r.cstring();
        const typeOid = r.int32();
        r.skip(4); // type modifier
        columns.push({ name, typeOid });
      }
      return { tag: 'relation', relation: { id, schema, table, columns } };
    }
    case 0x49: {
      // 'I' insert: 'N' then the new tuple
      const relationId = r.int32();
      r.skip(1);
      return { tag: 'insert', relationId, row: r.tuple(relationOf(relations, relationId)) };
    }
    case 0x55: {
      // 'U' update: optional 'K' (key) or 'O' (old row), then 'N' and the new tuple
      const relationId = r.int32();
      const relation = relationOf(relations, relationId);
      let old: TupleValues | null = null;
      if (buf[r.pos] === 0x4b || buf[r.pos] === 0x4f) {
        r.skip(1);
        old = r.tuple(relation);
      }
      r.skip(1);
      const row = r.tuple(relation);
      // An unchanged TOASTed value is sent only in the old row (with REPLICA IDENTITY FULL).
      for (const [k, v] of Object.entries(row)) if (v === undefined && old) row[k] = old[k];
      return { tag: 'update', relationId, row, old };
    }
    case 0x44: {
      // 'D' delete: 'K' or 'O', then the key or the old row
      const relationId = r.int32();
      r.skip(1);
      return { tag: 'delete', relationId, old: r.tuple(relationOf(relations, relationId)) };
    }
    case 0x4f: {
      // 'O' origin: the transaction was committed by a session marked with a replication origin (bulk writes of
      // an auction's import or restore, which subscribers are not sent row by row)
      r.skip(8); // the origin's commit LSN
      return { tag: 'origin', name: r.cstring() };
    }
    default:
      return { tag: 'other' }; // type, truncate, message: nothing a subscriber receives
  }
}

function relationOf(relations: ReadonlyMap<number, Relation>, id: number): Relation {
  const relation = relations.get(id);
  // pgoutput always sends a Relation message before the first row of a relation in a session.
  if (!relation) throw new Error(`pgoutput: row for unknown relation ${id}`);
  return relation;
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
  ) {}
  skip(n: number): void {
    this.pos += n;
  }
  int16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): bigint {
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.pos);
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 1;
    return s;
  }
  tuple(relation: Relation): TupleValues {
    const count = this.int16();
    const row: TupleValues = {};
    for (let i = 0; i < count; i++) {
      const name = relation.columns[i]?.name ?? String(i);
      const kind = this.buf[this.pos++];
      if (kind === 0x6e)
        row[name] = null; // 'n'
      else if (kind === 0x75)
        row[name] = undefined; // 'u' unchanged TOAST
      else {
        const len = this.int32(); // 't' text (or 'b' binary, not requested)
        row[name] = this.buf.toString('utf8', this.pos, this.pos + len);
        this.pos += len;
      }
    }
    return row;
  }
}
