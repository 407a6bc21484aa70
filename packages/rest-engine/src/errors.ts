// The one errors module of the engine: stable PGRST codes, one factory per error, and the SQLSTATE -> HTTP table.
// Every failure leaves the engine as a RestError, rendered as PostgREST's `{code, details, hint, message}`.

/** How much of an error a client is told: everything, or only its code and message. */
export type ErrorVerbosity = 'verbose' | 'minimal';

/** What an error may carry besides its status, code and message. */
interface RestErrorExtras {
  details?: string | unknown[] | null;
  hint?: string | null;
  headers?: Record<string, string>;
}

export class RestError extends Error {
  readonly details: string | unknown[] | null;
  readonly hint: string | null;
  readonly headers: Record<string, string>;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    extras: RestErrorExtras = {},
  ) {
    super(message);
    this.name = 'RestError';
    this.details = extras.details ?? null;
    this.hint = extras.hint ?? null;
    this.headers = extras.headers ?? {};
  }
  /** The JSON body; `minimal` (PostgREST's client-error-verbosity) leaves details and hint out. */
  body(verbosity: ErrorVerbosity = 'verbose'): string {
    if (verbosity === 'minimal') return JSON.stringify({ code: this.code, message: this.message });
    return JSON.stringify({ code: this.code, details: this.details, hint: this.hint, message: this.message });
  }
}

export const errors = {
  connection: (msg: string) =>
    new RestError(503, 'PGRST000', 'Database connection error. Retrying the connection.', { details: msg }),
  internal: (msg: string) => new RestError(503, 'PGRST001', 'Database client error', { details: msg }),
  schemaCacheNotLoaded: () =>
    new RestError(503, 'PGRST002', 'Could not query the database for the schema cache. Retrying.'),
  poolTimeout: () => new RestError(504, 'PGRST003', 'Timed out acquiring connection from connection pool.'),
  /**
   * The connection was lost after COMMIT was sent and before its answer came: the write may or may not have been
   * applied. SQLSTATE 08007 (transaction_resolution_unknown) says exactly that; unlike PGRST000 it does not invite a
   * blind retry, which would apply a committed write twice or answer 409 for the caller's own row.
   */
  commitUnknown: (msg: string) =>
    new RestError(503, '08007', 'The connection to the database was lost while the transaction was committing.', {
      details: `It may or may not have committed: ${msg}`,
      hint: 'Read the rows back before sending the write again.',
    }),
  parse: (message: string, details: string | null = null) => new RestError(400, 'PGRST100', message, { details }),
  rpcMethod: (method: string) => new RestError(405, 'PGRST101', `Cannot use the ${method} method on RPC`),
  invalidBody: (message: string, details: string | null = null) => new RestError(400, 'PGRST102', message, { details }),
  // The answer still says how many rows there are, as a 416 should (RFC 9110: `*/total`).
  rangeNotSatisfiable: (offset: number, total: number) =>
    new RestError(416, 'PGRST103', 'Requested range not satisfiable', {
      details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
      headers: { 'content-range': `*/${total}` },
    }),
  rangeReversed: () =>
    new RestError(416, 'PGRST103', 'Requested range not satisfiable', {
      details: 'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    }),
  negativeLimit: () =>
    new RestError(416, 'PGRST103', 'Requested range not satisfiable', {
      details: 'Limit should be greater than or equal to zero.',
    }),
  putLimit: () => new RestError(400, 'PGRST114', 'limit/offset querystring parameters are not allowed for PUT'),
  invalidPut: (message = "Filters must include all and only primary key columns with 'eq' operators") =>
    new RestError(405, 'PGRST105', message),
  schemaNotExposed: (schema: string, exposed: readonly string[]) =>
    new RestError(406, 'PGRST106', `Invalid schema: ${schema}`, {
      hint: `Only the following schemas are exposed: ${exposed.join(', ')}`,
    }),
  notAcceptable: (accept: string) =>
    new RestError(406, 'PGRST107', `None of these media types are available: ${accept}`),
  notEmbedded: (name: string) =>
    new RestError(400, 'PGRST108', `'${name}' is not an embedded resource in this request`, {
      hint: `Verify that '${name}' is included in the 'select' query parameter.`,
    }),
  singular: (rows: number) =>
    new RestError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', {
      details: `The result contains ${rows} rows`,
    }),
  unsupportedMethod: (method: string) => new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`),
  orderToMany: (origin: string, target: string) =>
    new RestError(400, 'PGRST118', `A related order on '${target}' is not possible`, {
      details: `'${origin}' and '${target}' do not form a many-to-one or one-to-one relationship`,
    }),
  embedOperator: () =>
    new RestError(400, 'PGRST120', 'Bad operator on the embedded resource', {
      hint: `Only is null or not is null filters are allowed on embedded resources`,
    }),
  strictPrefer: (prefs: string[]) =>
    new RestError(400, 'PGRST122', 'Invalid preferences given with handling=strict', {
      details: `Invalid preferences: ${prefs.join(', ')}`,
    }),
  aggregatesDisabled: () => new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed'),
  maxAffected: (n: number) =>
    new RestError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', {
      details: `The query affects ${n} rows`,
    }),
  invalidPath: () => new RestError(404, 'PGRST125', 'Invalid path specified in request URL'),
  noRelationship: (
    origin: string,
    target: string,
    schema: string,
    hint: string | null = null,
    suggestion: string | null = null,
  ) =>
    new RestError(
      400,
      'PGRST200',
      `Could not find a relationship between '${origin}' and '${target}' in the schema cache`,
      {
        details:
          `Searched for a foreign key relationship between '${origin}' and '${target}'` +
          (hint === null ? '' : ` using the hint '${hint}'`) +
          ` in the schema '${schema}', but no matches were found.`,
        hint: suggestion === null ? null : `Perhaps you meant '${suggestion}' instead of '${target}'.`,
      },
    ),
  ambiguousEmbed: (origin: string, target: string, candidates: unknown[], hints: string[]) =>
    new RestError(
      300,
      'PGRST201',
      `Could not embed because more than one relationship was found for '${origin}' and '${target}'`,
      {
        details: candidates,
        hint:
          `Try changing '${target}' to one of the following: ${hints.map((h) => `'${target}!${h}'`).join(', ')}. ` +
          "Find the desired relationship in the 'details' key.",
      },
    ),
  // By POST (`post`) a single unnamed json/jsonb parameter would also have matched, and the details say so.
  noFunction: (schema: string, name: string, args: string[], suggestion: string | null = null, post = true) =>
    new RestError(
      404,
      'PGRST202',
      `Could not find the function ${schema}.${name}` +
        (args.length === 0 ? ' without parameters' : `(${args.join(', ')})`) +
        ' in the schema cache',
      {
        details:
          `Searched for the function ${schema}.${name} ` +
          (args.length === 0
            ? 'without parameters'
            : `with parameter${args.length === 1 ? '' : 's'} ${args.join(', ')}`) +
          (post ? ' or with a single unnamed json/jsonb parameter' : '') +
          ', but no matches were found in the schema cache.',
        hint: suggestion === null ? null : `Perhaps you meant to call the function ${schema}.${suggestion}`,
      },
    ),
  /** No overload takes a body of this media type whole (a single unnamed parameter of `type`). */
  noRawBodyFunction: (schema: string, name: string, type: string) =>
    new RestError(404, 'PGRST202', `Could not find the function ${schema}.${name} in the schema cache`, {
      details:
        `Searched for the function ${schema}.${name} with a single unnamed ${type} parameter, ` +
        'but no matches were found in the schema cache.',
    }),
  ambiguousFunction: (schema: string, name: string, sigs: string[]) =>
    new RestError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${sigs.map((s) => `${schema}.${name}(${s})`).join(', ')}`,
      {
        hint:
          'Try renaming the parameters or the function itself in the database so function overloading can be ' +
          'resolved',
      },
    ),
  noColumn: (column: string, table: string) =>
    new RestError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`),
  noTable: (schema: string, name: string, suggestion: string | null = null) =>
    new RestError(404, 'PGRST205', `Could not find the table '${schema}.${name}' in the schema cache`, {
      hint: suggestion === null ? null : `Perhaps you meant the table '${schema}.${suggestion}'`,
    }),
  /**
   * 401 for a bearer token that cannot be used: PGRST301 (not verifiable) or PGRST303 (a claim refused), with
   * RFC 6750's challenge naming the failure (quotes and backslashes dropped, so the quoted-string stays whole).
   */
  jwt: (message: string, code: 'PGRST301' | 'PGRST303' = 'PGRST301', details: string | null = null) =>
    new RestError(401, code, message, {
      details,
      headers: {
        'www-authenticate': `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`,
      },
    }),
  forbiddenRole: (role: string) => new RestError(401, 'PGRST303', `role "${role}" is not allowed`),
  unknownColumn: (column: string, table: string) =>
    new RestError(400, '42703', `column ${table}.${column} does not exist`),
  repeatedEmbed: (alias: string) => new RestError(400, '42712', `table name "${alias}" specified more than once`),
  unknownType: (type: string) => new RestError(400, '42704', `type "${type}" does not exist`),
  unfilteredWrite: (op: 'UPDATE' | 'DELETE') =>
    new RestError(400, '21000', `${op} requires a WHERE clause`, {
      hint: 'Add a filter to the query string, or enable allowUnfilteredWrites',
    }),
  notInsertable: (name: string, op: string) =>
    new RestError(405, 'PGRST117', `Cannot ${op} on '${name}': it is not updatable`),
  notImplemented: (details: string) => new RestError(400, 'PGRST127', 'Feature not implemented', { details }),
  // The softDeletes option names a function the schema cache (reloaded since the start) no longer has.
  softDeleteUnavailable: (why: string) =>
    new RestError(500, '42883', why, { hint: 'Fix the function or the softDeletes option, then reload the schema' }),
  putMismatch: () => new RestError(400, 'PGRST115', 'Payload values do not match URL in primary key column(s)'),
};

/**
 * PostgREST's mapSQLtoHTTP. `authenticated` decides 42501: 403 for a caller with a token, 401 for anon. The message,
 * when given, decides three codes as PostgREST's table does: 21000 is 400 only for a write refused for want of a
 * WHERE clause (pg-safeupdate, allowUnfilteredWrites) and 500 otherwise (a subquery of a view or function returning
 * several rows); 22023 is 401 for a role that does not exist (the JWT's role claim) and 400 otherwise; 42883 is 406
 * when the missing function is `xmlagg` (XML asked of rows that have no XML form).
 */
export function sqlStateToStatus(code: string, authenticated: boolean, message = ''): number {
  switch (code) {
    case '23503':
    case '23505':
      return 409;
    case '42501':
      return authenticated ? 403 : 401;
    case 'P0001':
      return 400;
    case '42883':
      return message.startsWith('function xmlagg(') ? 406 : 404;
    case '42P01':
      return 404;
    case '42P17': // infinite recursion (of rules or policies): a fault of the schema, not of the request
      return 500;
    case '21000':
      return message.endsWith('requires a WHERE clause') ? 400 : 500;
    case '22023':
      return message.startsWith('role') && message.endsWith('does not exist') ? 401 : 400;
    case '25006':
      return 405;
    case '53400': // configuration_limit_exceeded (temp_file_limit): a limit of the server, not unavailability
    case '57014':
      return 500;
    // The server going away or not accepting connections yet (shutdown, crash, start-up or recovery). They come as
    // SQL states through postgres.js, where PostgREST's libpq sees a lost connection and answers 503: so do we.
    case '57P01':
    case '57P02':
    case '57P03':
      return 503;
  }
  const c2 = code.slice(0, 2);
  // RAISE with SQLSTATE 'PTxyz' sets the status xyz; a PT code that is not a status is a server error.
  if (c2 === 'PT') return /^PT\d\d\d$/.test(code) ? Number(code.slice(2)) : 500;
  if (c2 === '08' || c2 === '53') return 503;
  if (c2 === '28' || c2 === '0L' || c2 === '0P') return 403;
  if (['XX', '09', '25', '2D', '38', '39', '3B', '40', '54', '55', '57', '58', 'F0', 'HV', 'P0'].includes(c2))
    return 500;
  return 400;
}

interface PgErrorLike {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  severity?: string;
}

/** Turns a postgres.js error into a RestError; non-Postgres failures (socket, pool) become 503s. */
export function fromDatabaseError(err: unknown, authenticated: boolean): RestError {
  if (err instanceof RestError) return err;
  const e = err as PgErrorLike & { name?: string };
  if (e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && e.severity) {
    const status = sqlStateToStatus(e.code, authenticated, e.message ?? '');
    return new RestError(status, e.code, e.message ?? 'database error', {
      details: e.detail ?? null,
      hint: e.hint ?? null,
      // Refused as the anonymous role: a token may be what is missing, and RFC 9110 wants the scheme named.
      headers: status === 401 ? { 'www-authenticate': 'Bearer' } : undefined,
    });
  }
  if (e && typeof e.code === 'string' && /CONNECT|ECONN|CONNECTION|TIMEOUT/i.test(e.code))
    return errors.connection(e.message ?? String(e.code));
  return errors.internal(e?.message ?? String(err));
}
