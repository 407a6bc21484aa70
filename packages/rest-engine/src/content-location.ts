// Content-Location of a read, as PostgREST gives it: the table's name and the query string in canonical form, its
// parameters sorted by name (a stable sort) and each name and value percent-encoded again, every byte but the
// unreserved ones (A-Z a-z 0-9 - _ . ~) as %XX.

/** The bytes a query-string part stands for: `+` is a space, `%XX` the byte XX (a stray `%` stays as it is). */
function decodePart(text: string): Buffer {
  // Most parts have neither: no byte-by-byte pass on every read for them.
  if (!text.includes('%') && !text.includes('+')) return Buffer.from(text, 'utf8');
  const raw = Buffer.from(text.replace(/\+/g, ' '), 'utf8');
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const hex = raw[i] === 0x25 && i + 2 < raw.length ? raw.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else out.push(raw[i]);
  }
  return Buffer.from(out);
}

/** Each byte as the canonical form writes it: unreserved ones (A-Z a-z 0-9 - _ . ~) as they are, others as %XX. */
const ENCODED = Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b);
  return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
});

function encodePart(bytes: Buffer): string {
  let s = '';
  for (const b of bytes) s += ENCODED[b];
  return s;
}

/**
 * The table's name as a header may carry it: its UTF-8 bytes outside printable ASCII (and `%`) as %XX. A header
 * holds no other text (Node refuses it, and a line break would end the header).
 */
function encodeName(name: string): string {
  let s = '';
  for (const b of Buffer.from(name, 'utf8'))
    s +=
      b > 0x20 && b < 0x7f && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return s;
}

/** Printable ASCII without space, `%` and `+`: text that stands for its own bytes, one per character. */
const PLAIN = /^[!-$&-*,-~]*$/;
/** Characters the canonical form keeps as they are. */
const UNRESERVED = /^[A-Za-z0-9\-_.~]*$/;

/** A plain part (see PLAIN) encoded as encodePart would encode its bytes, without making them. */
function encodePlain(text: string): string {
  if (UNRESERVED.test(text)) return text;
  let s = '';
  for (let i = 0; i < text.length; i++) s += ENCODED[text.charCodeAt(i)];
  return s;
}

const splitParam = (p: string): [string, string] => {
  const eq = p.indexOf('=');
  return eq === -1 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
};

/** `/name?a=eq.1&b=eq.1` for the query string `b=eq.1&a=eq.1`; `/name` without parameters. */
export function contentLocation(name: string, search: string): string {
  const path = `/${PLAIN.test(name) ? name : encodeName(name)}`;
  const parts = search.split(/[&;]/).filter((p) => p !== '');
  if (parts.length === 0) return path;
  let query: string;
  // Array.prototype.sort is stable: parameters of one name keep their order.
  if (PLAIN.test(search)) {
    // The usual query string: one byte per character, so comparing the strings compares the bytes.
    const params = parts.map(splitParam);
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    query = params.map(([k, v]) => `${encodePlain(k)}=${encodePlain(v)}`).join('&');
  } else {
    const params = parts.map((p) => splitParam(p).map(decodePart));
    params.sort((a, b) => Buffer.compare(a[0]!, b[0]!));
    query = params.map(([k, v]) => `${encodePart(k!)}=${encodePart(v!)}`).join('&');
  }
  return `${path}?${query}`;
}
