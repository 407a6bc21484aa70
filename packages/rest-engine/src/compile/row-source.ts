// Compiles the FROM item of a read level: a table, the rows a mutation returned, a computed relationship's
// function of the parent row, or a function call with its arguments (positional, one JSON body, or named).
import { qualified, quoteIdent } from '../ident.js';
import type { CallArgs, ReadPlan } from '../plan/types.js';
import type { SqlBuilder } from './sql-builder.js';

export function source(b: SqlBuilder, plan: ReadPlan): void {
  const s = plan.source;
  if (s.kind === 'table') b.push(qualified(s.table.schema, s.table.name), ' ', plan.sqlAlias);
  else if (s.kind === 'mutated') b.push('pgrst_source ', plan.sqlAlias);
  else if (s.kind === 'computed') b.push(qualified(s.fn.schema, s.fn.name), '(', s.parent, ') ', plan.sqlAlias);
  else {
    callArgsFrom(b, s.call);
    b.push(s.call.mode === 'record' ? ' CROSS JOIN LATERAL ' : '');
    callExpr(b, s.call);
    b.push(' ', plan.sqlAlias);
  }
}

/**
 * A parameter declared `char(4)` or `bit(4)` is `character` or `bit` to PostgreSQL (a function's parameters keep no
 * length), which as a column type is one character or bit: the arguments are read as the varying types, which take
 * a value of any length, and the call converts them, as PostgREST does.
 */
const VARYING: Readonly<Record<string, string>> = {
  character: 'character varying',
  'character[]': 'character varying[]',
  bit: 'bit varying',
  'bit[]': 'bit varying[]',
};

/** `json_to_record($n::json) AS _args(...)` for calls with named arguments; nothing otherwise. */
export function callArgsFrom(b: SqlBuilder, call: CallArgs): void {
  if (call.mode !== 'record') return;
  b.push('json_to_record(').param(call.json, 'text').push('::json').push(') AS _args(');
  const typeOf = (n: string) => {
    const type = call.fn.args.find((a) => a.name === n)!.type;
    return VARYING[type] ?? type;
  };
  b.push(call.argNames.map((n) => `${quoteIdent(n)} ${typeOf(n)}`).join(', '), ')');
}

export function callExpr(b: SqlBuilder, call: CallArgs): void {
  b.push(qualified(call.fn.schema, call.fn.name), '(');
  if (call.mode === 'single')
    // The body as text, cast in SQL: it is already the JSON the function takes.
    b.param(call.json, 'text').push('::', call.fn.args[0].type);
  else if (call.mode === 'record')
    // A VARIADIC parameter takes its array by name only after the VARIADIC keyword.
    b.push(
      call.argNames
        .map((n) => {
          const variadic = call.fn.args.find((a) => a.name === n)?.variadic ? 'VARIADIC ' : '';
          return `${variadic}${quoteIdent(n)} := _args.${quoteIdent(n)}`;
        })
        .join(', '),
    );
  b.push(')');
}
