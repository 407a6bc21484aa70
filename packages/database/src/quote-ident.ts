// The one place identifiers become SQL text (values never do: they are parameters).

/** A double-quoted identifier, embedded quotes doubled: safe for any name PostgreSQL allows. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** schema.name, each part quoted on its own (names may hold dots). */
export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}
