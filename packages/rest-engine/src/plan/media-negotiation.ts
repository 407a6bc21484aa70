// Content negotiation with the database's media type handlers (PostgREST's): the Accept header's entries in
// PostgREST's order (q-value, then specificity), the first one something can answer wins. The engine's own vendored media types (one object, stripped nulls, plan)
// are never overridden; any other media type is answered by, in this order, the relation's (or function's) handler
// for `*/*`, its handler for that media type (both only with the default select: a handler takes the relation's
// whole row), an anyelement handler for it, and last the engine's own rendering (JSON, CSV, GeoJSON).
import { errors } from '../errors.js';
import { acceptEntries, builtinMediaOf } from '../parse/header-parser.js';
import type { MediaType, SelectItem } from '../parse/types.js';
import { type MediaHandler, mediaHandlerKey, type SchemaCache, tableKey } from '../schema-cache/types.js';

interface Negotiated {
  readonly media: MediaType;
  /** The handler that makes the answer (media is then 'raw'), or null for the engine's own rendering. */
  readonly handler: MediaHandler | null;
}

const VENDORED: ReadonlySet<MediaType> = new Set<MediaType>(['object', 'stripped-object', 'stripped-array', 'plan']);

/** No select, or `select=*`: the relation's whole row, which a relation's own handler takes. */
export const isDefaultSelect = (select: readonly SelectItem[] | null): boolean =>
  select === null || (select.length === 1 && select[0]!.kind === 'star');

/**
 * `parsed`: the first media type the engine produces itself ('raw' when none); `target`: the relation read, or the
 * function called (for a function returning rows of a relation, that relation's name in the function's schema);
 * `scalar`: the answer is a function's single value (a function returning a media type domain answers with it).
 */
export function negotiateMedia(
  cache: SchemaCache,
  acceptHeader: string,
  parsed: MediaType,
  target: { readonly schema: string; readonly name: string },
  defaultSelect: boolean,
  scalar: boolean,
): Negotiated {
  const handlers = cache.mediaHandlers;
  if (handlers.size === 0) {
    if (parsed === 'raw') throw errors.notAcceptable(acceptHeader);
    return { media: parsed, handler: null };
  }
  const own = tableKey(target.schema, target.name);
  const usable = (h: MediaHandler | undefined) => (h && (scalar || h.kind === 'aggregate') ? h : undefined);
  for (const entry of acceptEntries(acceptHeader)) {
    const builtin = builtinMediaOf(entry);
    if (builtin !== null && VENDORED.has(builtin)) return { media: builtin, handler: null };
    const type = entry.split(';')[0]!.trim().toLowerCase();
    const handler =
      (defaultSelect
        ? (usable(handlers.get(mediaHandlerKey(own, '*/*'))) ?? usable(handlers.get(mediaHandlerKey(own, type))))
        : undefined) ?? usable(handlers.get(mediaHandlerKey('', type)));
    if (handler) return { media: 'raw', handler };
    if (builtin !== null) return { media: builtin, handler: null };
  }
  throw errors.notAcceptable(acceptHeader);
}
