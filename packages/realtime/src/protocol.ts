// Phoenix channel frames as realtime-js sends and reads them: vsn 1.0.0 (JSON objects), vsn 2.0.0 (JSON arrays,
// and binary frames for broadcasts: kind 3 from clients, kind 4 to clients).
export type Vsn = '1.0.0' | '2.0.0';

export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

/** A broadcast whose user payload is raw bytes (binary encoding): relayed as bytes, never as JSON. */
interface BinaryPayload {
  bytes: Buffer;
}

/** Stored broadcasts carry their id; replayed ones say so (realtime-js reads `meta.replayed` and `meta.id`). */
export interface BroadcastMeta {
  id: string;
  replayed?: boolean;
}

/** A broadcast as it reaches a channel: a JSON payload, or bytes. */
export interface BroadcastMessage {
  event: string;
  payload: unknown;
  meta?: BroadcastMeta;
}

export class FrameError extends Error {}

const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;
const ENCODING_BINARY = 0;
const ENCODING_JSON = 1;

export function parseVsn(value: string | null): Vsn | undefined {
  if (value === null || value === '1.0.0') return '1.0.0';
  return value === '2.0.0' ? '2.0.0' : undefined;
}

export function decodeText(text: string, vsn: Vsn): Frame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new FrameError('frame is not JSON');
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length !== 5)
      throw new FrameError('frame is not [join_ref, ref, topic, event, payload]');
    const [joinRef, ref, topic, event, payload] = parsed;
    return frame(joinRef, ref, topic, event, payload);
  }
  if (!isObject(parsed)) throw new FrameError('frame is not an object');
  return frame(parsed.join_ref, parsed.ref, parsed.topic, parsed.event, parsed.payload);
}

/** Decodes a client's binary broadcast push into the frame its JSON form would have been. */
export function decodeBinary(buf: Buffer): Frame {
  if (buf.length < 7 || buf[0] !== KIND_USER_BROADCAST_PUSH) throw new FrameError('unsupported binary frame');
  const lengths = [buf[1]!, buf[2]!, buf[3]!, buf[4]!, buf[5]!];
  const encoding = buf[6];
  let offset = 7;
  const [joinRef, ref, topic, event, meta] = lengths.map((len) => {
    const s = buf.toString('utf8', offset, offset + len);
    offset += len;
    return s;
  }) as [string, string, string, string, string];
  if (offset > buf.length) throw new FrameError('binary frame shorter than its header');
  const body = buf.subarray(offset);
  let payload: unknown;
  if (encoding === ENCODING_JSON) {
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw new FrameError('binary frame payload is not JSON');
    }
  } else if (encoding === ENCODING_BINARY) {
    payload = { bytes: Buffer.from(body) } satisfies BinaryPayload;
  } else throw new FrameError('unknown binary payload encoding');
  const broadcast: Record<string, unknown> = { type: 'broadcast', event, payload };
  if (meta) {
    try {
      broadcast.meta = JSON.parse(meta);
    } catch {
      throw new FrameError('binary frame metadata is not JSON');
    }
  }
  return frame(joinRef || null, ref || null, topic, 'broadcast', broadcast);
}

export function encodeText(f: Frame, vsn: Vsn): string {
  return vsn === '2.0.0'
    ? JSON.stringify([f.joinRef, f.ref, f.topic, f.event, f.payload])
    : JSON.stringify({ join_ref: f.joinRef, ref: f.ref, topic: f.topic, event: f.event, payload: f.payload });
}

/** A broadcast with a bytes payload for a vsn 2.0.0 client (kind 4); metadata, when any, is JSON. */
export function encodeBinaryBroadcast(topic: string, event: string, bytes: Buffer, meta?: BroadcastMeta): Buffer {
  const t = Buffer.from(topic);
  const e = Buffer.from(event);
  const m = Buffer.from(meta ? JSON.stringify(meta) : '');
  const header = Buffer.from([KIND_USER_BROADCAST, t.length, e.length, m.length, ENCODING_BINARY]);
  return Buffer.concat([header, t, e, m, bytes]);
}

/** A `phx_reply` frame: `{status, response}`, the response carrying `reason` when one is given. */
export function replyFrame(
  joinRef: string | null,
  ref: string | null,
  topic: string,
  status: 'ok' | 'error',
  reason?: string,
): Frame {
  return {
    joinRef,
    ref,
    topic,
    event: 'phx_reply',
    payload: { status, response: reason === undefined ? {} : { reason } },
  };
}

export function isBinaryPayload(value: unknown): value is BinaryPayload {
  return isObject(value) && Buffer.isBuffer(value.bytes);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function frame(joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown): Frame {
  if (typeof topic !== 'string' || typeof event !== 'string') throw new FrameError('frame needs a topic and an event');
  return {
    joinRef: joinRef == null ? null : String(joinRef),
    ref: ref == null ? null : String(ref),
    topic,
    event,
    payload: isObject(payload) ? payload : {},
  };
}
