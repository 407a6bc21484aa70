// The gate in front of every reporting query: the statement is parsed by PostgreSQL's own parser (libpg-query)
// and accepted only when it is exactly one plain SELECT that reads the table named `dataset` (and its own CTEs)
// and calls only allow-listed functions. Text tricks (comments, dollar quoting, unicode escapes, stacked
// statements) cannot pass, because the decision is made on the parse tree, not on the text.
import { createHash } from 'node:crypto';

type Validation = { ok: true; fingerprint: string; statement: string } | { ok: false; reason: string };

/** Functions a report may call: aggregates, window functions, and pure scalar helpers. */
const ALLOWED_FUNCTIONS = new Set(
  (
    'count sum avg min max stddev stddev_pop stddev_samp variance var_pop var_samp bool_and bool_or every ' +
    'string_agg array_agg percentile_cont percentile_disc mode corr covar_pop covar_samp regr_slope ' +
    'row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value ' +
    'abs ceil ceiling floor round trunc sign sqrt cbrt power exp ln log log10 mod div greatest least random ' +
    'width_bucket coalesce nullif lower upper initcap length char_length octet_length trim btrim ltrim rtrim ' +
    'substr substring left right replace position strpos concat concat_ws split_part lpad rpad reverse ' +
    'to_char to_date to_timestamp to_number date_trunc date_part extract age make_date make_timestamp ' +
    'make_interval justify_days justify_hours now current_date current_timestamp timezone isfinite ' +
    'regexp_replace regexp_match regexp_matches starts_with format md5 array_length cardinality unnest ' +
    'generate_series num_nonnulls num_nulls'
  ).split(/\s+/),
);

/** Node types that only a statement doing more than reading could contain. */
const FORBIDDEN_NODES = new Set([
  'InsertStmt',
  'UpdateStmt',
  'DeleteStmt',
  'MergeStmt',
  'IntoClause',
  'LockingClause',
  'CopyStmt',
  'CallStmt',
  'DoStmt',
  'VariableSetStmt',
  'TransactionStmt',
  'CreateStmt',
  'CreateTableAsStmt',
  'DropStmt',
  'AlterTableStmt',
  'RangeTableFunc',
  'XmlExpr',
  'XmlSerialize',
]);

export async function validateReportSql(sql: string): Promise<Validation> {
  let tree: { stmts?: Array<{ stmt: Record<string, unknown>; stmt_location?: number; stmt_len?: number }> };
  // libpg-query's WebAssembly parser adds about 13 MB to a process (and 136 MB of address space): imported here (Node
  // keeps the module once loaded), not by every server process at start. Outside the try: a parser that cannot load
  // is the server's failure, not the statement's.
  const { parse } = await import('libpg-query');
  try {
    tree = (await parse(sql)) as unknown as typeof tree;
  } catch (error) {
    return { ok: false, reason: `not valid SQL: ${(error as Error).message}` };
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length !== 1) return { ok: false, reason: `exactly one statement is allowed, found ${stmts.length}` };
  const stmt = stmts[0].stmt;
  if (!('SelectStmt' in stmt)) return { ok: false, reason: `only SELECT is allowed, not ${Object.keys(stmt)[0]}` };
  const cteNames = new Set<string>();
  collect(stmt, (kind, node) => {
    if (kind === 'CommonTableExpr') cteNames.add(String(node.ctename));
  });
  let reason: string | undefined;
  const refuse = (why: string) => {
    reason ??= why;
  };
  collect(stmt, (kind, node) => {
    if (FORBIDDEN_NODES.has(kind)) refuse(`${describe(kind)} is not allowed`);
    else if (kind === 'SelectStmt' && node.intoClause) refuse('SELECT ... INTO is not allowed');
    else if (kind === 'CommonTableExpr' && !('SelectStmt' in (node.ctequery as object)))
      refuse('a WITH clause may only hold SELECT queries');
    else if (kind === 'RangeVar') {
      const name = String(node.relname);
      if (node.schemaname || node.catalogname) refuse(`schema-qualified tables are not allowed (${name})`);
      else if (name !== 'dataset' && !cteNames.has(name)) refuse(`only the table "dataset" may be read, not ${name}`);
    } else if (kind === 'FuncCall') {
      const parts = (node.funcname as Array<{ String: { sval: string } }>).map((p) => p.String.sval);
      const name = parts[parts.length - 1].toLowerCase();
      if (parts.length > 1 && parts[0] !== 'pg_catalog') refuse(`function ${parts.join('.')} is not allowed`);
      else if (!ALLOWED_FUNCTIONS.has(name)) refuse(`function ${name} is not allowed`);
    } else if (kind === 'TypeCast') {
      const names = ((node.typeName as { names?: Array<{ String: { sval: string } }> }).names ?? []).map(
        (p) => p.String.sval,
      );
      const type = names[names.length - 1] ?? '';
      if (/^reg/.test(type)) refuse(`casts to ${type} are not allowed`);
    } else if (kind === 'SQLValueFunction' && /USER|ROLE|CATALOG|SCHEMA/.test(String(node.op))) {
      refuse('session information functions are not allowed');
    }
  });
  if (reason) return { ok: false, reason };
  // The parser's own bounds of the statement (UTF-8 byte offsets): no trailing semicolon or comment survives.
  const bytes = Buffer.from(sql, 'utf8');
  const start = stmts[0].stmt_location ?? 0;
  const end = stmts[0].stmt_len ? start + stmts[0].stmt_len : bytes.length;
  return { ok: true, fingerprint: fingerprint(stmt), statement: bytes.subarray(start, end).toString('utf8') };
}

/** A hash of the parse tree without source positions: the same query however it is spaced, cased or commented. */
function fingerprint(stmt: unknown): string {
  const json = JSON.stringify(stmt, (key, value) =>
    key === 'location' || key === 'stmt_location' ? undefined : value,
  );
  return createHash('sha256').update(json).digest('base64url');
}

function describe(kind: string): string {
  return kind
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

/** Visits every node of a libpg-query tree: objects with a single capitalised key are typed nodes. */
function collect(node: unknown, visit: (kind: string, body: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (/^[A-Z]/.test(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      visit(key, value as Record<string, unknown>);
    }
    collect(value, visit);
  }
}
