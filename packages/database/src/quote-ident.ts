// The one place identifiers become SQL text in the workspace's packages (values never do: they are parameters).
// rest-engine keeps its own copy (src/ident.ts) because it is published on its own and depends on no workspace
// package.

/** A double-quoted identifier, embedded quotes doubled: safe for any name PostgreSQL allows. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** schema.name, each part quoted on its own (names may hold dots). */
export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}
