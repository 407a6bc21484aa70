// The label values of a request's metrics, bounded by construction: the path family from the first segments (never
// the path itself, which carries table names and ids) and the method from a fixed list.
export type Family = 'auth' | 'rest' | 'storage' | 'functions' | 'realtime' | 'other';

const FAMILY = /^\/(auth|rest|storage|functions|realtime)\/v1(?:\/|$)/;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function familyOf(path: string): Family {
  return (FAMILY.exec(path)?.[1] as Family | undefined) ?? 'other';
}

/** A method outside the standard ones (any token is valid HTTP) counts as OTHER, so clients cannot add series. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'OTHER';
}
