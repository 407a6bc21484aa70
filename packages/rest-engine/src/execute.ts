// Runs one request as one transaction on a reserved connection. BEGIN, the context statement, the main statement
// (and EXPLAIN for planned counts) and, when nothing must be decided from the result, COMMIT are pipelined:
// written together and answered together, one round trip when the statements are already prepared.
// postgres.js's `unsafe` does not prepare by default; an unprepared statement with parameters costs a Describe
// round trip before its Bind (the pipeline stalls) and a parse in Postgres every time. So the context statement and
// BEGIN/COMMIT/ROLLBACK are always prepared (an unnamed statement is parsed and described again on every use), and
// main statements while a bounded budget of distinct texts lasts (see StatementBudget).
// Fewer statements are not possible: the role must be set by a statement before the main one (privileges and
// row-level security are fixed when a statement starts), and postgres.js ends every statement with Sync, so the
// context and main statements share a transaction only inside BEGIN ... COMMIT.
import type postgres from 'postgres';
import type { Statement } from './compile/sql-builder.js';
import type { CompiledRequest } from './compile/statement-compiler.js';
import { afterCommitSent } from './commit-outcome.js';
import { errors, RestError } from './errors.js';
import type { Plan } from './plan/types.js';
import { checkResult, type MainResult } from './respond.js';

/**
 * Every parameter goes out as the exact text the client gave, typed `unknown` (OID 705) in the Parse message, so
 * Postgres infers its type from the statement as it does for a literal, as PostgREST does. postgres.js chooses a
 * serializer by the type of each parameter: for a parameter left untyped (0) it would take the type Postgres
 * describes and apply JSON.stringify for json, `t`/`f` for bool, Date for timestamps, which would change (or throw
 * on) what PostgREST passes as plain text. An explicit type through the public `sql.typed` keeps its slot out of the
 * described types, and no serializer is registered for `unknown`, so the text is sent verbatim.
 */
const UNKNOWN_OID = 705;

// Postgres text cannot hold NUL, and a NUL inside a bind message breaks the protocol exchange: refuse it as Postgres
// would refuse it in a literal.
function raw(sql: postgres.Sql, params: readonly unknown[]): unknown[] {
  return params.map((p) => {
    if (p === null || p === undefined) return null;
    const s = String(p);
    if (s.includes('\u0000')) throw new RestError(400, '22021', 'invalid byte sequence for encoding "UTF8": 0x00');
    return sql.typed(s, UNKNOWN_OID);
  });
}

export const CONTEXT_SQL =
  "select set_config('search_path', $1, true), set_config('role', $2, true), " +
  "set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), " +
  "set_config('request.path', $5, true), set_config('request.headers', $6, true), " +
  "set_config('statement_timeout', coalesce($7, current_setting('statement_timeout')), true), " +
  "set_config('timezone', coalesce($8, current_setting('timezone')), true), set_config('request.cookies', $9, true), " +
  // The app settings of the engine's options (names app.settings.*, checked at start): none come from a request.
  '(select count(set_config(s.k, s.v, true)) from unnest($10::text[], $11::text[]) s(k, v))';

export interface TxContext {
  readonly searchPath: string;
  readonly role: string;
  readonly claims: string;
  readonly method: string;
  readonly path: string;
  readonly headers: string;
  readonly statementTimeout: string | null;
  readonly timezone: string | null;
  /** The request's cookies as a JSON object (request.cookies); `{}` unless the engine's requestCookies. */
  readonly cookies: string;
  /** The app settings' names and values, as array literals (text[]). */
  readonly appSettingNames: string;
  readonly appSettingValues: string;
}

/** Returning a value commits; throwing rolls back. Called only in decide mode. */
export type Decision = (r: MainResult) => 'commit' | 'rollback';

/**
 * Which main statements are prepared (named, kept per connection by postgres.js and Postgres for the connection's
 * life). Statement texts depend only on the request's shape, but shapes are chosen by clients, so the first `limit`
 * distinct texts are prepared and any others run unnamed. A schema reload starts a new budget whose texts carry a
 * generation comment: statements prepared against the old schema (parameter types fixed at prepare time) are
 * never reused after a migration.
 */
export class StatementBudget {
  private readonly texts = new Map<string, string>();
  private readonly prefix: string;
  constructor(
    private readonly limit: number,
    generation = 0,
  ) {
    this.prefix = generation === 0 ? '' : `/* schema ${generation} */ `;
  }
  /** The text to send and whether to prepare it. */
  take(text: string): { text: string; prepare: boolean } {
    const known = this.texts.get(text);
    if (known !== undefined) return { text: known, prepare: true };
    if (this.texts.size >= this.limit) return { text: this.prefix + text, prepare: false };
    const tagged = this.prefix + text;
    this.texts.set(text, tagged);
    return { text: tagged, prepare: true };
  }
}

/**
 * A reserved connection, or PGRST003 when none is free within `timeoutMs`. A reservation that arrives after the
 * deadline is released at once: postgres.js cannot withdraw a queued reservation.
 */
export async function reserveWithin(sql: postgres.Sql, timeoutMs: number): Promise<postgres.ReservedSql> {
  const pending = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  // The error is built only when the deadline passes: an Error captures a stack, too dear for every request.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errors.poolTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([pending, deadline]);
  } catch (e) {
    pending.then(
      (c) => c.release(),
      () => {},
    );
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

export interface ExecuteOptions {
  readonly readOnly: boolean;
  /** How long to wait for a free pool connection before PGRST003 (default 10 s). */
  readonly poolTimeoutMs?: number;
  /** Prepares main statements within this budget; without it they run unnamed. */
  readonly statements?: StatementBudget;
  /** The main statement is an EXPLAIN: its output, in this format, is the body. */
  readonly planOutput?: 'json' | 'text' | null;
  /** Known before execution: 'commit' or 'rollback'. A function decides after seeing the main result. */
  readonly end: 'commit' | 'rollback' | Decision;
  /** `select <function>()` run after the context statement (PostgREST's db-pre-request). */
  readonly preRequest?: string | null;
}

/** EXPLAIN's output as the body: the JSON document, or the text lines. */
function planResult(rows: postgres.RowList<postgres.Row[]>, format: 'json' | 'text'): MainResult {
  const lines = rows.map((r) => r['QUERY PLAN']);
  const body =
    format === 'json' ? (typeof lines[0] === 'string' ? lines[0] : JSON.stringify(lines[0])) : lines.join('\n');
  return { total: null, pageTotal: 0, body, location: null, planRows: null, inserted: null };
}

function toResult(
  rows: postgres.RowList<postgres.Row[]>,
  explain: postgres.RowList<postgres.Row[]> | null,
  planOutput: 'json' | 'text' | null = null,
): MainResult {
  if (planOutput) return planResult(rows, planOutput);
  const row = rows[0] ?? {};
  let planRows: number | null = null;
  if (explain) {
    const plan = explain[0]?.['QUERY PLAN'];
    const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
    planRows = parsed?.[0]?.Plan?.['Plan Rows'] ?? null;
  }
  return {
    total: row.total === null || row.total === undefined ? null : Number(row.total),
    pageTotal: Number(row.page_total ?? 0),
    body: row.body ?? '',
    location: row.location ?? null,
    planRows,
    inserted: row.inserted === undefined || row.inserted === null ? null : Number(row.inserted),
    gucHeaders: row.response_headers ?? null,
    gucStatus: row.response_status ?? null,
  };
}

function send(conn: postgres.ReservedSql, text: string, params: readonly unknown[] = [], prepare = false) {
  return conn.unsafe(text, params as never[], { prepare });
}

/** Checks the deferred constraints of a transaction about to be rolled back (an error when one is violated). */
const CHECK_DEFERRED = 'SET CONSTRAINTS ALL IMMEDIATE';

export async function execute(
  sql: postgres.Sql,
  ctx: TxContext,
  main: Statement,
  explain: Statement | null,
  opts: ExecuteOptions,
): Promise<{ result: MainResult; ended: 'commit' | 'rollback' }> {
  // Converted before a connection is reserved: a refused value must not leave a transaction half-sent.
  const ctxParams = raw(sql, [
    ctx.searchPath,
    ctx.role,
    ctx.claims,
    ctx.method,
    ctx.path,
    ctx.headers,
    ctx.statementTimeout,
    ctx.timezone,
    ctx.cookies,
    ctx.appSettingNames,
    ctx.appSettingValues,
  ]);
  const mainParams = raw(sql, main.params);
  const explainParams = explain ? raw(sql, explain.params) : [];
  const mainText = opts.statements ? opts.statements.take(main.sql) : { text: main.sql, prepare: false };
  const conn = await reserveWithin(sql, opts.poolTimeoutMs ?? 10_000);
  try {
    // Each statement's rejection is caught at once (the first one is the cause; those after it only report the
    // aborted transaction), and every statement is awaited before the connection goes back to the pool.
    let failure: { reason: unknown; atCommit: boolean } | null = null;
    const settle = (q: Promise<postgres.RowList<postgres.Row[]>>, atCommit = false) =>
      q.catch((reason) => {
        failure ??= { reason, atCommit };
        return null;
      });
    const begin = settle(send(conn, opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN', [], true));
    const context = settle(send(conn, CONTEXT_SQL, ctxParams, true));
    const pre = opts.preRequest ? settle(send(conn, opts.preRequest, [], true)) : null;
    const mainRows = settle(send(conn, mainText.text, mainParams, mainText.prepare));
    const explainRows = explain ? settle(send(conn, explain.sql, explainParams)) : null;
    // A write that is rolled back still answers for its deferred constraints, as PostgREST: they are checked now.
    const checked = opts.end === 'rollback' && !opts.readOnly ? settle(send(conn, CHECK_DEFERRED, [], true)) : null;
    const end =
      typeof opts.end === 'string'
        ? settle(send(conn, opts.end === 'commit' ? 'COMMIT' : 'ROLLBACK', [], true), true)
        : null;
    await begin;
    await context;
    await pre;
    const rows = await mainRows;
    const plan = await explainRows;
    await checked;
    await end;
    if (failure !== null) {
      const { reason, atCommit } = failure as { reason: unknown; atCommit: boolean };
      if (typeof opts.end !== 'string') await send(conn, 'ROLLBACK', [], true).catch(() => {});
      // A write whose COMMIT went out with the pipeline may have committed however its answers were lost.
      throw opts.end === 'commit' && !opts.readOnly ? afterCommitSent(reason, atCommit) : reason;
    }
    const result = toResult(rows!, plan, opts.planOutput ?? null);
    if (typeof opts.end === 'string') return { result, ended: opts.end };
    let ended: 'commit' | 'rollback';
    try {
      ended = opts.end(result);
    } catch (e) {
      await send(conn, 'ROLLBACK', [], true);
      throw e;
    }
    if (ended === 'rollback' && !opts.readOnly) {
      await send(conn, CHECK_DEFERRED, [], true).catch(async (e) => {
        await send(conn, 'ROLLBACK', [], true);
        throw e;
      });
    }
    await send(conn, ended === 'commit' ? 'COMMIT' : 'ROLLBACK', [], true).catch((e) => {
      throw ended === 'commit' ? afterCommitSent(e, true) : e;
    });
    return { result, ended };
  } finally {
    conn.release();
  }
}

export interface PlanExecution {
  readonly sql: postgres.Sql;
  readonly poolTimeoutMs: number;
  readonly statements: StatementBudget;
  /** How a transaction ends unless `Prefer: tx` says otherwise where it may (txOverridable). */
  readonly txDefault: 'commit' | 'rollback';
  readonly txOverridable: boolean;
  /** The pre-request call's statement, or null. */
  readonly preRequest?: string | null;
  /** Times a write rolled back by a deadlock or a serialization failure is run again (default 0, as PostgREST). */
  readonly conflictRetries?: number;
}

/**
 * PostgreSQL's codes for a transaction it rolled back to settle a conflict with another one: a deadlock (40P01), a
 * serialization failure (40001). Nothing of the transaction stayed, so it can run again, and the other transaction
 * has gone on meanwhile. Reads are left alone: they take no row locks here, and on a read replica 40001 is a
 * conflict with replay that the caller settles by reading elsewhere.
 */
const CONFLICT_CODES = new Set(['40P01', '40001']);

function rolledBackByConflict(e: unknown): boolean {
  const { code, severity } = (e ?? {}) as { code?: unknown; severity?: unknown };
  return severity === 'ERROR' && typeof code === 'string' && CONFLICT_CODES.has(code);
}

/** A few milliseconds, random, so that two transactions that deadlocked do not meet again at once. */
const conflictPause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, (attempt + 1) * (5 + Math.random() * 20)));

/**
 * The execute stage: one transaction for a planned and compiled request. A write whose result decides its fate (a
 * singular media type, max-affected) is checked inside the transaction, so that breaking the rule rolls it back.
 */
export async function executePlan(
  env: PlanExecution,
  ctx: TxContext,
  plan: Exclude<Plan, { kind: 'options' | 'openapi' }>,
  compiled: CompiledRequest,
): Promise<MainResult> {
  const rollback = (env.txOverridable && plan.prefer.tx ? plan.prefer.tx : env.txDefault) === 'rollback';
  const mustDecide =
    !plan.readOnly && (plan.media === 'object' || plan.media === 'stripped-object' || plan.prefer.maxAffected !== null);
  // The deciding function is built only for the writes that need it.
  const end: ExecuteOptions['end'] = mustDecide
    ? (r) => {
        checkResult(plan, r);
        return rollback ? 'rollback' : 'commit';
      }
    : rollback
      ? 'rollback'
      : 'commit';
  const options: ExecuteOptions = {
    readOnly: plan.readOnly,
    poolTimeoutMs: env.poolTimeoutMs,
    statements: env.statements,
    planOutput: compiled.planOutput,
    preRequest: env.preRequest ?? null,
    end,
  };
  const retries = plan.readOnly ? 0 : (env.conflictRetries ?? 0);
  for (let attempt = 0; ; attempt++) {
    try {
      const { result } = await execute(env.sql, ctx, compiled.main, compiled.explain, options);
      if (!mustDecide) checkResult(plan, result);
      return result;
    } catch (e) {
      if (attempt >= retries || !rolledBackByConflict(e)) throw e;
      await conflictPause(attempt);
    }
  }
}
