// A child span for each database statement run inside a traced request or job: postgres.js has no hooks, so the
// prototype of its query class is wrapped (as OpenTelemetry's own database instrumentations patch their drivers),
// once per process and only when tracing is on. The span carries the statement text with placeholders, never
// the values: tagged templates keep values apart from the text by construction.
import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

interface QueryLike {
  executed?: boolean;
  tagged?: boolean;
  strings: string | readonly string[];
  resolve: (value: unknown) => unknown;
  reject: (error: unknown) => unknown;
  handle(): unknown;
}

interface Active {
  tracer: Tracer;
  activeContext: () => Context;
}

let active: Active | undefined;
const patched = new WeakSet<object>();

/** The statement as sent, with $1, $2, ... where the values go (a nested fragment also shows as one $n). */
export function statementText(q: Pick<QueryLike, 'strings'>): string {
  if (typeof q.strings === 'string') return q.strings;
  return q.strings.reduce((text, part, i) => `${text}$${i}${part}`);
}

const OPERATION = /^\s*(?:with\b[\s\S]*?\)\s*)?([a-z]+)/i;

interface Described {
  name: string;
  attributes: Record<string, string>;
  /** False for transaction control, sent in one pipeline with the statements it brackets (see below). */
  traced: boolean;
}

// BEGIN, COMMIT, ROLLBACK and savepoints get no span: the engine sends them in one pipeline with the statements
// they bracket, so their spans would repeat their neighbours' timing, and at a quarter of a request's spans they
// were a quarter of tracing's cost. A COMMIT that fails (a deferred constraint) answers the request with its error,
// which the server span records.
const TRANSACTION_CONTROL = new Set(['BEGIN', 'START', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE']);
// A tagged template's strings array is one object per call site, and the engine repeats the same text: described
// once, a statement's span shares its name and attributes instead of rebuilding them (and their garbage) per call.
const byTemplate = new WeakMap<readonly string[], Described>();
const byText = new Map<string, Described>();
const MAX_TEXTS = 1000;

function describe(q: QueryLike): Described {
  const strings = q.strings;
  // `sql.unsafe(text)` wraps its text in a new one-element array on every call: keyed by the text, not the array
  // (which would miss every time and fill the WeakMap with garbage for the collector).
  const single = typeof strings === 'string' ? strings : strings.length === 1 ? strings[0] : undefined;
  const known = single !== undefined ? byText.get(single) : byTemplate.get(strings as readonly string[]);
  if (known) return known;
  const text = statementText(q);
  const operation = OPERATION.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  const described = {
    name: `db ${operation}`,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text },
    traced: !TRANSACTION_CONTROL.has(operation),
  };
  if (single === undefined) byTemplate.set(strings as readonly string[], described);
  else if (byText.size < MAX_TEXTS) byText.set(single, described);
  return described;
}

function startStatementSpan(a: Active, q: QueryLike): Span | undefined {
  const parent = a.activeContext();
  // Statements outside a traced request or job (pool upkeep, LISTEN) are not traced: they would each be a trace.
  // Nor are those of a request the sampler left out: their spans would be dropped anyway.
  if (!trace.getSpan(parent)?.isRecording()) return undefined;
  const { name, attributes, traced } = describe(q);
  if (!traced) return undefined;
  return a.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
}

/** Wraps the query class behind `sample` (any unexecuted query of the pool) and traces statements from now on. */
export function traceStatements(sample: object, tracer: Tracer, activeContext: () => Context): () => void {
  active = { tracer, activeContext };
  const proto = Object.getPrototypeOf(sample) as QueryLike;
  if (!patched.has(proto)) {
    patched.add(proto);
    const handle = proto.handle;
    proto.handle = function (this: QueryLike) {
      if (!this.executed && active) {
        const span = startStatementSpan(active, this);
        if (span) {
          const { resolve, reject } = this;
          this.resolve = (value) => {
            span.end();
            return resolve(value);
          };
          this.reject = (error) => {
            // The SQLSTATE says what went wrong; the message may quote values, so it stays out.
            const code = (error as { code?: unknown }).code;
            span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
            span.end();
            return reject(error);
          };
        }
      }
      return handle.call(this);
    };
  }
  return () => {
    active = undefined;
  };
}
