// Request headers read from Node's parsed request, and the response headers every response carries (request id,
// CORS). Node's header object is already parsed; a web Headers object per request is not needed.
// Cheapest first, as measured: a route that builds its response's headers as a plain object takes the gateway's
// headers into it (takeGatewayHeaders: no extra cost); otherwise they are set on Node's response before node-server
// writes the head (about 10 µs: Node then merges every header through setHeader); only without a Node response
// (app.request() in tests) are they added to the finished web Response (slower still: a Headers copy).
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';

type Outgoing = import('node:http').ServerResponse;

export function requestHeader(c: Context<AppEnv>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function outgoingOf(c: Context<AppEnv>): Outgoing | undefined {
  const outgoing = (c.env as { outgoing?: Outgoing } | undefined)?.outgoing;
  return outgoing && !outgoing.headersSent ? outgoing : undefined;
}

// Kept in the request's context variables, not in a WeakMap keyed by the context: a new key per request fills the
// map's table with entries only the garbage collector removes.

/** Called by the gateway before the route runs. */
export function offerGatewayHeaders(c: Context<AppEnv>, names: readonly string[], values: readonly string[]): void {
  c.set('gatewayHeaders', { names, values, taken: false });
}

/** Adds headers to the gateway's (rate-limit counters, from a middleware after it); they travel with the rest. */
export function addGatewayHeaders(c: Context<AppEnv>, names: readonly string[], values: readonly string[]): void {
  const offered = c.get('gatewayHeaders');
  if (!offered || offered.taken) return;
  offered.moreNames = names;
  offered.moreValues = values;
}

/**
 * For routes answering with `new Response(body, { headers: plainObject })`: copies the gateway's headers into that
 * object (a route's own header of the same name wins) so the gateway does not add them afterwards.
 */
export function takeGatewayHeaders(c: Context<AppEnv>, into: Record<string, string>): void {
  const offered = c.get('gatewayHeaders');
  if (!offered || offered.taken) return;
  offered.taken = true;
  for (let i = 0; i < offered.names.length; i++) into[offered.names[i]] ??= offered.values[i];
  const { moreNames, moreValues } = offered;
  if (moreNames && moreValues) for (let i = 0; i < moreNames.length; i++) into[moreNames[i]] ??= moreValues[i];
}

/** After the route: adds the gateway's headers to `res` unless the route took them. */
export function settleGatewayHeaders(c: Context<AppEnv>, res: Response): void {
  const offered = c.get('gatewayHeaders');
  if (!offered || offered.taken) return;
  offered.taken = true;
  const outgoing = outgoingOf(c);
  setAll(outgoing, res, offered.names, offered.values);
  if (offered.moreNames && offered.moreValues) setAll(outgoing, res, offered.moreNames, offered.moreValues);
}

function setAll(outgoing: Outgoing | undefined, res: Response, names: readonly string[], values: readonly string[]) {
  if (outgoing) for (let i = 0; i < names.length; i++) outgoing.setHeader(names[i], values[i]);
  else for (let i = 0; i < names.length; i++) res.headers.set(names[i], values[i]);
}
