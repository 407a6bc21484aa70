// What SQL may say about its own answer, as in PostgREST: the response.status and response.headers settings (set by
// a function, a trigger or the pre-request function) override the status and the headers they name; and an error
// raised with SQLSTATE 'PGRST' carries its answer as JSON, the body in MESSAGE and the status and headers in DETAIL.
import { RestError } from './errors.js';
import type { EngineResponse, MainResult } from './respond.js';

const gucHeadersError = () =>
  new RestError(
    500,
    'PGRST111',
    'response.headers guc must be a JSON array composed of objects with a single key and a string value',
  );
const gucStatusError = () => new RestError(500, 'PGRST112', 'response.status guc must be a valid status code');

// What HTTP allows in a field name (a token) and value: anything else (a line break above all) would let SQL text
// start a header or an answer of its own, and Node's writer throws on it mid-answer.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const validHeader = (name: string, value: unknown): value is string =>
  HEADER_NAME.test(name) && typeof value === 'string' && HEADER_VALUE.test(value);
const validStatus = (status: number) => Number.isInteger(status) && status >= 100 && status <= 599;

/** `[{"Name": "value"}, ...]` as header pairs, or null when the text is not that shape. */
function headerPairs(text: string): [string, string][] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const pairs: [string, string][] = [];
  for (const item of parsed) {
    const entries = item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.entries(item) : [];
    const [name, value] = entries[0] ?? [];
    if (entries.length !== 1 || name === undefined || !validHeader(name, value)) return null;
    pairs.push([name.toLowerCase(), value]);
  }
  return pairs;
}

/** The answer with the settings' status and headers applied (they win over the engine's own). */
export function applyResponseGucs(res: EngineResponse, r: MainResult): EngineResponse {
  if (r.gucStatus) {
    if (!/^\d{3}$/.test(r.gucStatus.trim()) || !validStatus(Number(r.gucStatus.trim()))) throw gucStatusError();
    res.status = Number(r.gucStatus.trim());
  }
  if (r.gucHeaders) {
    const pairs = headerPairs(r.gucHeaders);
    if (pairs === null) throw gucHeadersError();
    // A name set twice (two cookies) keeps both values, joined as HTTP joins repeated fields.
    const set = new Map<string, string>();
    for (const [name, value] of pairs) set.set(name, set.has(name) ? `${set.get(name)}, ${value}` : value);
    for (const [name, value] of set) res.headers[name] = value;
  }
  return res;
}

interface PgErrorFields {
  readonly code?: unknown;
  readonly severity?: unknown;
  readonly message?: string;
  readonly detail?: string;
}

/** A database error raised with SQLSTATE 'PGRST'. */
export const isRaisedAnswer = (e: unknown): e is PgErrorFields =>
  e !== null && typeof e === 'object' && (e as PgErrorFields).code === 'PGRST' && !!(e as PgErrorFields).severity;

const parseObject = (text: string | undefined): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

const raiseParseError = (details: string, hint: string) =>
  new RestError(500, 'PGRST121', `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`, { details, hint });

const MESSAGE_HINT =
  "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
const DETAIL_HINT =
  "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";

/** `RAISE SQLSTATE 'PGRST' USING message = '{...}', detail = '{...}'` as the answer it describes. */
export function raisedAnswer(e: PgErrorFields): RestError {
  const m = parseObject(e.message);
  if (m === null || typeof m.code !== 'string' || typeof m.message !== 'string')
    return raiseParseError(`Invalid JSON value for MESSAGE: '${e.message ?? ''}'`, MESSAGE_HINT);
  if (e.detail === undefined || e.detail === null || e.detail === '')
    return raiseParseError('DETAIL is missing in the RAISE statement', DETAIL_HINT);
  const d = parseObject(e.detail);
  const headers = d?.headers;
  const headersOk =
    headers !== null &&
    typeof headers === 'object' &&
    Object.entries(headers as object).every(([name, value]) => validHeader(name, value));
  if (d === null || typeof d.status !== 'number' || !validStatus(d.status) || !headersOk)
    return raiseParseError(`Invalid JSON value for DETAIL: '${e.detail}'`, DETAIL_HINT);
  const lower = Object.fromEntries(
    Object.entries(headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return new RestError(d.status, m.code, m.message, {
    details: typeof m.details === 'string' ? m.details : null,
    hint: typeof m.hint === 'string' ? m.hint : null,
    headers: lower,
  });
}
