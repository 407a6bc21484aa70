// Compiles conditions: a field (column, or a path into a JSON column), filters with their operators (comparison,
// IN, ANY/ALL, full-text search), the null checks on embeds and the and/or/not trees that combine them.
import { qualified, quoteIdent } from '../ident.js';
import type { Field, Filter } from '../parse/types.js';
import type { Column, DbFunction } from '../schema-cache/types.js';
import type { EmbedPlan, PlannedCondition } from '../plan/types.js';
import { arrayLiteral, type SqlBuilder } from './sql-builder.js';

/** A field of the row `alias`: its column, or with `computed` that computed field (the function of the row). */
export function field(b: SqlBuilder, alias: string, f: Field, computed?: DbFunction): void {
  const value = () => {
    if (computed) b.push(qualified(computed.schema, computed.name), '(', alias, ')');
    else b.push(alias, '.', quoteIdent(f.name));
  };
  if (f.jsonPath.length === 0) {
    value();
    return;
  }
  b.push('(');
  if (f.viaJsonb) b.push('pg_catalog.to_jsonb(');
  value();
  if (f.viaJsonb) b.push(')');
  for (const step of f.jsonPath) {
    b.push(step.arrow);
    if (step.index) b.param(step.key, 'int4');
    else b.param(step.key, 'text');
  }
  b.push(')');
}

const SIMPLE_OPS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
  isdistinct: 'IS DISTINCT FROM',
};
/** The operators whose value a data representation reads through its cast from text (not LIKE patterns). */
const COMPARING = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'isdistinct']);

const FTS_FN: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

function filter(b: SqlBuilder, alias: string, f: Filter, col: Column, computed?: DbFunction): void {
  // A data representation read from text: the query-string value goes through the domain's cast from text (the
  // type named comes from the catalog, never from the request).
  const cast = f.field.jsonPath.length === 0 && !computed && COMPARING.has(f.op) ? col.representation?.fromText : null;
  const fromText = cast ? qualified(cast.schema, cast.name) : null;
  if (f.negate) b.push('NOT (');
  const v = f.value;
  if (v.kind === 'is') {
    field(b, alias, f.field, computed);
    b.push(' IS ', v.value === 'not_null' ? 'NOT NULL' : v.value.toUpperCase());
  } else if (f.op === 'in' && v.kind === 'list' && fromText) {
    field(b, alias, f.field, computed);
    b.push(' = ANY(SELECT ', fromText, '(_v) FROM pg_catalog.unnest(')
      .param(arrayLiteral(v.values), 'text[]')
      .push(') _v)');
  } else if (f.op === 'in' && v.kind === 'list') {
    field(b, alias, f.field, computed);
    b.push(' = ANY(').param(arrayLiteral(v.values)).push(')');
  } else if (f.quant && v.kind === 'list') {
    field(b, alias, f.field, computed);
    b.push(' ', SIMPLE_OPS[f.op], f.quant === 'any' ? ' ANY(' : ' ALL(')
      .param(arrayLiteral(v.values))
      .push(')');
  } else if (v.kind === 'scalar' && FTS_FN[f.op]) {
    const lang = () => {
      if (f.lang) b.param(f.lang, 'regconfig').push(', ');
    };
    const tsvector = col.baseType === 'tsvector' || col.underlyingType === 'tsvector';
    if (tsvector && f.field.jsonPath.length === 0) field(b, alias, f.field, computed);
    else {
      b.push('to_tsvector(');
      lang();
      field(b, alias, f.field, computed);
      b.push(')');
    }
    b.push(' @@ ', FTS_FN[f.op], '(');
    lang();
    b.param(v.value).push(')');
  } else if (v.kind === 'scalar' && fromText) {
    field(b, alias, f.field, computed);
    b.push(' ', SIMPLE_OPS[f.op], ' ', fromText, '(').param(v.value, 'text').push(')');
  } else if (v.kind === 'scalar') {
    field(b, alias, f.field, computed);
    b.push(' ', SIMPLE_OPS[f.op], ' ').param(v.value);
  } else {
    b.push('FALSE'); // unreachable: the parser pairs operators and value kinds
  }
  if (f.negate) b.push(')');
}

/**
 * A condition on the row `alias`. With `exists`, a null check on an embed asks whether the embed's level has a row
 * (`[NOT] EXISTS (...)`, the counted rows' form); without, it reads the embed's lateral join.
 */
export function condition(
  b: SqlBuilder,
  alias: string,
  c: PlannedCondition,
  exists?: (b: SqlBuilder, embed: EmbedPlan) => void,
): void {
  switch (c.kind) {
    case 'filter':
      filter(b, alias, c.filter, c.column, c.computed);
      return;
    case 'embed-null':
      if (exists) {
        if (c.isNull) b.push('NOT ');
        exists(b, c.embed);
      } else if (c.embed.spread && c.embed.toOne)
        b.push(c.embed.sqlAlias, '.pgrst_rows IS ', c.isNull ? 'NULL' : 'NOT NULL');
      else if (c.embed.spread) b.push(c.embed.sqlAlias, '.pgrst_rows ', c.isNull ? '=' : '<>', ' 0');
      else if (c.embed.toOne) b.push(c.embed.sqlAlias, '.body IS ', c.isNull ? 'NULL' : 'NOT NULL');
      else b.push(c.embed.sqlAlias, '.body::text ', c.isNull ? '=' : '<>', " '[]'");
      return;
    case 'logic':
      b.push(c.negate ? 'NOT (' : '(');
      c.children.forEach((x, i) => {
        if (i) b.push(c.op === 'and' ? ' AND ' : ' OR ');
        condition(b, alias, x, exists);
      });
      b.push(')');
  }
}
