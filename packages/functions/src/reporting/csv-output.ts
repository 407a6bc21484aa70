// CSV for spreadsheets: RFC 4180 quoting, and cells that a spreadsheet would run as a formula (starting with
// = + - @, tab, CR or NUL) prefixed with a single quote. Numbers stay numbers: -5 is data, not a formula.
const FORMULA_START = /^[=+\-@\t\r\0]/;

export function toCsv(columns: readonly { name: string }[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map((c) => cell(c.name)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(row[c.name])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text =
    value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value !== 'number' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
