// Prefer, Accept, Range and the profile headers.
import { errors, RestError } from '../errors.js';
import type { MediaType, PlanRequest, Preferences, RequestHeaders } from './types.js';

type MutablePreferences = { -readonly [K in keyof Preferences]: Preferences[K] };

// A module function, not a closure per item: closures created per request cost an allocation (and, under tsx, a
// name definition) each.
function setPreference<K extends keyof Preferences>(
  p: MutablePreferences,
  invalid: string[],
  item: string,
  v: string,
  key: K,
  allowed: readonly string[] | null,
  val: Preferences[K],
): void {
  if (allowed && !allowed.includes(v)) {
    invalid.push(item);
    return;
  }
  if (p[key] === null) p[key] = val;
}

export function parsePrefer(header: string | undefined): Preferences {
  const p: MutablePreferences = {
    return: null,
    count: null,
    resolution: null,
    missing: null,
    handling: null,
    tx: null,
    maxAffected: null,
    timezone: null,
    invalid: [],
  };
  const invalid: string[] = [];
  for (const raw of (header ?? '').split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const k = eq < 0 ? item : item.slice(0, eq).trim();
    const v = eq < 0 ? '' : item.slice(eq + 1).trim();
    // The first occurrence of each preference wins.
    switch (k) {
      case 'return':
        setPreference(
          p,
          invalid,
          item,
          v,
          'return',
          ['minimal', 'headers-only', 'representation'],
          v as Preferences['return'],
        );
        break;
      case 'count':
        setPreference(p, invalid, item, v, 'count', ['exact', 'planned', 'estimated'], v as Preferences['count']);
        break;
      case 'resolution':
        setPreference(
          p,
          invalid,
          item,
          v,
          'resolution',
          ['merge-duplicates', 'ignore-duplicates'],
          v as Preferences['resolution'],
        );
        break;
      case 'missing':
        setPreference(p, invalid, item, v, 'missing', ['default', 'null'], v as Preferences['missing']);
        break;
      case 'handling':
        setPreference(p, invalid, item, v, 'handling', ['strict', 'lenient'], v as Preferences['handling']);
        break;
      case 'tx':
        setPreference(p, invalid, item, v, 'tx', ['commit', 'rollback'], v as Preferences['tx']);
        break;
      case 'max-affected':
        if (/^\d{1,15}$/.test(v)) setPreference(p, invalid, item, v, 'maxAffected', null, Number(v));
        else invalid.push(item);
        break;
      case 'timezone': // passed to set_config as it is: PostgreSQL refuses an unknown zone (400 22023)
        if (v) setPreference(p, invalid, item, v, 'timezone', null, v);
        else invalid.push(item);
        break;
      case 'params':
        break; // params=single-object is obsolete in PostgREST; accepted and ignored
      default:
        invalid.push(item);
    }
  }
  p.invalid = invalid;
  return p;
}

/** The media type the engine produces itself for one entry of an Accept header, or null. */
export function builtinMediaOf(entry: string): MediaType | null {
  const [type, ...params] = entry
    .trim()
    .split(';')
    .map((s) => s.trim().toLowerCase());
  const stripped = params.includes('nulls=stripped');
  switch (type) {
    case 'application/json':
    case '*/*':
    case 'application/*':
      return 'json';
    case 'application/vnd.pgrst.array':
    case 'application/vnd.pgrst.array+json':
      return stripped ? 'stripped-array' : 'json';
    case 'application/vnd.pgrst.object+json':
    case 'application/vnd.pgrst.object':
      return stripped ? 'stripped-object' : 'object';
    case 'text/csv':
      return 'csv';
    case 'application/openapi+json':
      return 'openapi';
    case 'application/geo+json':
      return 'geojson';
    case 'application/vnd.pgrst.plan':
    case 'application/vnd.pgrst.plan+json':
    case 'application/vnd.pgrst.plan+text':
      return 'plan';
  }
  return null;
}

/**
 * An Accept header's entries in the order they are tried, as PostgREST (wai's parseHttpAccept) orders them: by
 * q-value, highest first, then by specificity (parameters before `q` count up, stars down), else as sent. Each
 * entry without its spaces and without `;q=` and what follows it. No header, or an empty one, accepts anything.
 */
export function acceptEntries(header: string | undefined): string[] {
  if (!header || header.trim() === '') return ['*/*'];
  const entries = header.split(',').map((raw, i) => {
    const e = raw.replace(/ /g, '');
    const at = e.indexOf(';q=');
    const type = at === -1 ? e : e.slice(0, at);
    const q = at === -1 ? 1 : Number.parseFloat(e.slice(at + 3).split(';')[0]!);
    const count = (c: string) => type.split(c).length - 1;
    return { type, q: Number.isNaN(q) ? 1 : q, specific: count(';') - count('*'), i };
  });
  entries.sort((a, b) => b.q - a.q || b.specific - a.specific || a.i - b.i);
  return entries.map((e) => e.type);
}

export function parseAccept(header: string | undefined): MediaType {
  if (!header || header.trim() === '') return 'json';
  // The first entry the engine produces itself, in PostgREST's order (acceptEntries).
  for (const entry of acceptEntries(header)) {
    const media = builtinMediaOf(entry);
    if (media !== null) return media;
  }
  throw errors.notAcceptable(header);
}

const PLAN_OPTIONS = new Set(['analyze', 'verbose', 'settings', 'buffers', 'wal']);

/** The EXPLAIN a plan media type asks for (only called when parseAccept chose 'plan'). */
function parsePlanAccept(header: string): PlanRequest {
  const [type, ...params] = header.split(';').map((s) => s.trim());
  let forMedia = 'application/json';
  let options: PlanRequest['options'] = [];
  for (const p of params) {
    const eq = p.indexOf('=');
    const key = p.slice(0, eq).trim().toLowerCase();
    const value = p.slice(eq + 1).trim();
    if (key === 'for') forMedia = value.replace(/^"|"$/g, '');
    else if (key === 'options') {
      options = value.split('|').filter((o): o is PlanRequest['options'][number] => PLAN_OPTIONS.has(o));
    }
  }
  return { format: type.toLowerCase().endsWith('+json') ? 'json' : 'text', for: forMedia, options };
}

export function parseRange(header: string | undefined): RequestHeaders['range'] {
  if (!header) return null;
  const m = /^(?:items=)?([0-9]+)-([0-9]*)$/.exec(header.trim());
  if (!m) return null; // PostgREST ignores a Range it cannot read
  const first = Number(m[1]);
  const last = m[2] === '' ? null : Number(m[2]);
  if (last !== null && last < first) throw errors.rangeReversed();
  return { offset: first, limit: last === null ? null : last - first + 1 };
}

export function parseHeaders(headers: Readonly<Record<string, string | undefined>>, write: boolean): RequestHeaders {
  let accept: MediaType;
  try {
    accept = parseAccept(headers.accept);
  } catch (e) {
    // None the engine produces itself: the planner decides (a function may answer in one of them).
    if (!(e instanceof RestError) || e.code !== 'PGRST107') throw e;
    accept = 'raw';
  }
  return {
    prefer: parsePrefer(headers.prefer),
    accept,
    plan: accept === 'plan' ? parsePlanAccept(headers.accept!) : null,
    range: parseRange(headers.range),
    profile: (write ? headers['content-profile'] : headers['accept-profile']) ?? null,
  };
}
