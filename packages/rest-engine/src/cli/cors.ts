// CORS of the command, as PostgREST's server answers it (`server-cors-allowed-origins`). A request without an
// Origin header gets no CORS headers. With one: an origin the setting does not list is served without them (the
// browser then refuses the answer); an empty setting allows every origin (`*`), a list echoes the allowed origin
// with `Access-Control-Allow-Credentials: true`. An OPTIONS request naming the method it wants to use
// (Access-Control-Request-Method) is a preflight, answered here without the engine; every other request gets the
// origin and the response headers a script may read, added to the engine's answer.

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'];
const EXPOSED =
  'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit';
// Request headers a browser may send without asking (CORS' simple headers but Content-Type, whose values are not all
// simple), allowed after the ones the preflight asked for.
const SIMPLE_HEADERS = ['Accept', 'Accept-Language', 'Content-Language'];
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

type CorsOutcome =
  /** A preflight: answer 200 with these headers and no body. */
  | { readonly kind: 'preflight'; readonly headers: Record<string, string> }
  /** Add these headers to the engine's answer (none when the request is not a cross-origin one). */
  | { readonly kind: 'pass'; readonly headers: Record<string, string> };

/** What CORS asks of a request: `allowedOrigins` empty allows any origin. */
export function cors(
  method: string,
  header: (name: string) => string | undefined,
  allowedOrigins: readonly string[],
): CorsOutcome {
  const origin = header('origin');
  if (origin === undefined) return { kind: 'pass', headers: {} };
  let common: Record<string, string>;
  if (allowedOrigins.length === 0) common = { 'access-control-allow-origin': '*' };
  else if (allowedOrigins.includes(origin))
    common = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' };
  else return { kind: 'pass', headers: {} };
  if (method === 'OPTIONS') {
    const preflight = preflightHeaders(header);
    // Not a preflight after all (no method asked for, one not offered, unreadable header names): the engine answers.
    if (preflight !== null) return { kind: 'preflight', headers: { ...common, ...preflight } };
    return { kind: 'pass', headers: {} };
  }
  return { kind: 'pass', headers: { ...common, 'access-control-expose-headers': EXPOSED } };
}

function preflightHeaders(header: (name: string) => string | undefined): Record<string, string> | null {
  const wanted = header('access-control-request-method');
  if (wanted === undefined || !METHODS.includes(wanted)) return null;
  const out: Record<string, string> = { 'access-control-allow-methods': METHODS.join(', ') };
  const asked = header('access-control-request-headers');
  if (asked !== undefined) {
    const names = asked.trim() === '' ? [] : asked.split(',').map((s) => s.trim());
    if (names.some((n) => !HEADER_NAME.test(n))) return null;
    const allowed: string[] = [];
    for (const n of ['Authorization', ...names, ...SIMPLE_HEADERS])
      if (!allowed.some((a) => a.toLowerCase() === n.toLowerCase())) allowed.push(n);
    out['access-control-allow-headers'] = allowed.join(', ');
  }
  out['access-control-max-age'] = '86400';
  return out;
}

/** What the command's settings add to every answer (see presetHeaders). */
interface PresetSettings {
  readonly serverCorsAllowedOrigins: readonly string[];
  readonly serverTraceHeader: string | null;
}

/**
 * The command's own headers for a request, preset on the response before the engine answers (the engine's own
 * headers, such as a Vary set by a function through response.headers, win): CORS, `Access-Control-Allow-Origin: *`
 * on answers to OPTIONS (as PostgREST's), `Vary: Accept, Prefer, Range` (what PostgREST's answers vary by), and the
 * request's trace header echoed (`server-trace-header`). A preflight is answered with its headers alone.
 */
export function presetHeaders(
  method: string,
  header: (name: string) => string | undefined,
  settings: PresetSettings,
): { readonly preflight: boolean; readonly headers: Record<string, string> } {
  const outcome = cors(method, header, settings.serverCorsAllowedOrigins);
  if (outcome.kind === 'preflight') return { preflight: true, headers: outcome.headers };
  const headers: Record<string, string> = { vary: 'Accept, Prefer, Range', ...outcome.headers };
  if (method === 'OPTIONS' && headers['access-control-allow-origin'] === undefined)
    headers['access-control-allow-origin'] = '*';
  if (settings.serverTraceHeader !== null)
    headers[settings.serverTraceHeader.toLowerCase()] = header(settings.serverTraceHeader.toLowerCase()) ?? '';
  return { preflight: false, headers };
}
