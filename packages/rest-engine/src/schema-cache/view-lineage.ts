// Where each view column comes from, read from the view's stored query tree (pg_rewrite.ev_action, the text form of
// the parsed SELECT). The parser records on each output column of the top-level query the relation and column it
// reads (resorigtbl, resorigcol), through joins, subqueries and CTEs; computed columns have none. This is the
// lineage PostgREST follows for relationships through views, so a view column is tied to the base column it really
// shows, not to any base column that happens to share its name.

interface ViewColumnOrigin {
  /** The view's column. */
  readonly column: string;
  /** The relation it reads (a table, or another view), by oid. */
  readonly relationOid: number;
  /** That relation's column, by attribute number. */
  readonly attnum: number;
}

/** The origins of a view's columns; columns computed by an expression, or of a set operation, have none. */
export function viewColumnOrigins(tree: string): ViewColumnOrigin[] {
  const query = tree.indexOf('{');
  if (query < 0) return [];
  const targets = readNode(tree, query).fields.get('targetList');
  if (!targets?.startsWith('(')) return [];
  const out: ViewColumnOrigin[] = [];
  for (const entry of childNodes(targets)) {
    const relationOid = Number(entry.get('resorigtbl'));
    const attnum = Number(entry.get('resorigcol'));
    const column = token(entry.get('resname'));
    if (entry.get('resjunk') === 'true' || column === null || !(relationOid > 0) || !(attnum > 0)) continue;
    out.push({ column, relationOid, attnum });
  }
  return out;
}

/** A scalar token as the node printer wrote it: backslash escapes undone, `<>` for null. */
function token(raw: string | undefined): string | null {
  if (raw === undefined || raw === '<>') return null;
  return raw.replace(/\\(.)/g, '$1');
}

/**
 * The fields of the node whose `{` is at `open` (name to raw value text, nested nodes and lists left as text) and
 * the index of its `}`. Backslash escapes the next character, so names with braces or spaces do not count.
 */
function readNode(text: string, open: number): { fields: Map<string, string>; end: number } {
  const fields = new Map<string, string>();
  let depth = 0;
  let name: string | null = null;
  let valueStart = 0;
  const close = (at: number) => {
    if (name !== null) fields.set(name, text.slice(valueStart, at).trim());
  };
  // Whether the previous character was unescaped white space: a field name starts only there (a name may hold
  // an escaped space followed by a colon).
  let afterSpace = false;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i];
    const spaceBefore = afterSpace;
    afterSpace = ch === ' ' || ch === '\n' || ch === '\t';
    if (ch === '\\') i++;
    else if (ch === '{' || ch === '(') depth++;
    else if (depth > 0 && (ch === '}' || ch === ')')) depth--;
    else if (ch === '}') {
      close(i);
      return { fields, end: i };
    } else if (ch === ':' && depth === 0 && spaceBefore) {
      close(i);
      const match = /^:(\w+)/.exec(text.slice(i, i + 64));
      name = match ? match[1] : null;
      valueStart = i + (match ? match[0].length : 1);
    }
  }
  close(text.length);
  return { fields, end: text.length };
}

/** The fields of each node directly inside a list `( {..} {..} )`. */
function childNodes(list: string): Map<string, string>[] {
  const out: Map<string, string>[] = [];
  for (let i = 1; i < list.length; i++) {
    const ch = list[i];
    if (ch === '\\') i++;
    else if (ch === '{') {
      const node = readNode(list, i);
      out.push(node.fields);
      i = node.end;
    }
  }
  return out;
}
