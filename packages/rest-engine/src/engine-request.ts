// The request the engine takes (RestEngine.handle): its own module so that the engine, the normalizer and the
// adapters all import it from here and none of them imports back.
import type postgres from 'postgres';
import type { BodyInput, HeadersInput } from './request-input.js';

export interface EngineRequest {
  method: string;
  /** Path relative to the mount: '/todos', '/rpc/fn' or '/'. */
  path: string;
  /** Raw query string without '?' (default ''). */
  search?: string;
  /** Header names in any case: a record, node's IncomingHttpHeaders, a fetch Headers or [name, value] pairs. */
  headers?: HeadersInput;
  /** Text, bytes, a stream or an already parsed JSON value. */
  body?: BodyInput;
  /** Verified JWT claims; undefined means anonymous. */
  claims?: Record<string, unknown>;
  /** Defaults to claims.role, else the anonymous role. */
  role?: string;
  /**
   * The pool this request runs on (a read replica for a read), logged in as the same role as `options.sql`;
   * default `options.sql`. The schema cache always comes from `options.sql`.
   */
  sql?: postgres.Sql;
}
