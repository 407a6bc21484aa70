// Prints TypeScript type literals with two-space indentation, in the layout the Supabase CLI's formatter gives them.

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A property key, quoted only where TypeScript needs it. */
export const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

export const indent = (text: string, by = 2): string =>
  text
    .split('\n')
    .map((line) => (line ? ' '.repeat(by) + line : line))
    .join('\n');

/** `{ member\n member }` over several lines; `{ [_ in never]: never }` when empty, as the CLI prints it. */
export function typeLiteral(members: readonly string[]): string {
  if (members.length === 0) return '{\n  [_ in never]: never\n}';
  return `{\n${members.map((m) => indent(m)).join('\n')}\n}`;
}

/** A literal string type (double quotes, as the CLI's formatter leaves them). */
export const literal = (s: string): string => JSON.stringify(s);

/** A tuple type of literal strings: `['a', 'b']`. */
export const literalTuple = (items: readonly string[]): string => `[${items.map(literal).join(', ')}]`;

/** Members of a union, one per line, each opening with `|`. */
export const union = (members: readonly string[]): string =>
  members.length === 1 ? members[0] : members.map((m) => `| ${indent(m).trimStart()}`).join('\n');
