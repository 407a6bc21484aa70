// What a function is to the family: its name, who may call it, its per-caller rate limit and its handler.
// Handlers get the caller already resolved and the request's body still unread (import-csv streams it).
import type { Claims } from '@auction-ops/auth-core';

/** user: a signed-in user or the service role; service: only the service role; any: also the bare API key. */
type FunctionAccess = 'user' | 'service' | 'any';

export interface Caller {
  role: 'authenticated' | 'service_role' | 'anon';
  /** The user's id; absent for the service role and the anon key. */
  userId?: string;
  claims: Claims;
}

interface FunctionRequest {
  caller: Caller;
  request: Request;
  /** The body parsed as JSON (INVALID_REQUEST when it is not JSON); `{}` for an empty body. */
  json(): Promise<unknown>;
}

export interface FunctionDefinition<Deps> {
  name: string;
  access: FunctionAccess;
  limit: { max: number; per: 'minute' | 'hour' };
  /** A plain value is sent as JSON with status 200; a Response is sent as it is (streams, CSV). */
  handle(req: FunctionRequest, deps: Deps): Promise<unknown>;
}

/** Identity helper that keeps each definition's types checked where it is written. */
export function defineFunction<Deps>(definition: FunctionDefinition<Deps>): FunctionDefinition<Deps> {
  return definition;
}
