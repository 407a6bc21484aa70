// The label values of a request's metrics, bounded by construction: the path family from the first segments (never
// the path itself, which carries table names and ids) and the method from a fixed list.
export type Family = 'auth' | 'rest' | 'storage' | 'functions' | 'realtime' | 'other';

const FAMILIES: readonly Family[] = ['rest', 'auth', 'storage', 'functions', 'realtime'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const METHOD_INDEX = new Map(METHODS.map((m, i) => [m, i]));

/** `/<family>/v1` alone or followed by `/`; compared in place (a regular expression's match array per request). */
export function familyOf(path: string): Family {
  for (const family of FAMILIES) {
    const end = family.length + 4;
    if (path.startsWith(family, 1) && path.charCodeAt(0) === 47 && path.startsWith('/v1', family.length + 1))
      if (path.length === end || path.charCodeAt(end) === 47) return family;
  }
  return 'other';
}

/** A method outside the standard ones (any token is valid HTTP) counts as OTHER, so clients cannot add series. */
export function methodLabel(method: string): string {
  return METHOD_INDEX.has(method) ? method : 'OTHER';
}

/**
 * A number naming a request's label set (family, method label, status), for keeping counts without building a
 * string per request.
 */
export function labelSetIndex(family: Family, method: string, status: number): number {
  const m = METHOD_INDEX.get(method) ?? METHODS.length;
  return ((FAMILIES.indexOf(family) + 1) * (METHODS.length + 1) + m) * 1000 + status;
}
