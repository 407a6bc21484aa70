// Whether a write transaction whose answers were lost may have committed. Statements go out pipelined, so a lost
// connection can take the answers of statements the server had already run, COMMIT included: a failure that is not
// a Postgres error (the statement's own refusal, after which nothing commits) leaves the outcome unknown once
// COMMIT was sent. PostgREST, over libpq, cannot tell either; it answers PGRST000, which invites a blind retry.
import { errors } from './errors.js';

interface ErrorLike {
  code?: unknown;
  severity?: unknown;
  message?: unknown;
}

/** A socket or client failure: no answer from the server (postgres.js codes, Node socket errors). */
function connectionLost(e: ErrorLike): boolean {
  return e.severity === undefined && typeof e.code === 'string' && /CONNECT|ECONN|CONNECTION|EPIPE/i.test(e.code);
}

/** The server ending the session (57P01 on a terminate, a shutdown): sent instead of COMMIT's own answer. */
function sessionEnded(e: ErrorLike): boolean {
  return e.severity === 'FATAL' || e.severity === 'PANIC';
}

/**
 * The error to answer for a failed transaction that had sent COMMIT (`atCommit`: the failure is COMMIT's own; a
 * FATAL answer to an earlier statement ended the session before COMMIT ran): 08007 when whether it committed cannot
 * be known, else the failure itself.
 */
export function afterCommitSent(reason: unknown, atCommit: boolean): unknown {
  const e = (reason ?? {}) as ErrorLike;
  if (connectionLost(e) || (atCommit && sessionEnded(e)))
    return errors.commitUnknown(typeof e.message === 'string' ? e.message : String(e.code));
  return reason;
}
