// Tokens of the Haskell subset PostgREST's hspec-wai suite is written in: literals (with Haskell's string escapes
// and gaps), quasi-quotes kept as raw text, identifiers, operators, brackets; comments and pragmas dropped. Each
// token keeps its line and column, which the parser's layout rule needs.

export type TokenKind = 'str' | 'char' | 'num' | 'qq' | 'var' | 'con' | 'op' | 'bt' | 'special' | 'kw';

export interface Token {
  readonly kind: TokenKind;
  /** The decoded value for literals, the quoter's text for quasi-quotes, else the token's spelling. */
  readonly text: string;
  /** For quasi-quotes: the quoter's name (json, aesonQQ, str). */
  readonly quoter?: string;
  readonly line: number;
  /** 1-based column, tabs counted as one (the suite has none). */
  readonly col: number;
  /** First token of its line: the layout rule looks only at these. */
  readonly bol: boolean;
}

const KEYWORDS = new Set(['do', 'let', 'in', 'where', 'of', 'if', 'then', 'else', 'case', 'module', 'import']);
const SYMBOL = /[!#$%&*+./<=>?@\\^|~:-]/;
const IDENT = /[A-Za-z0-9_']/;
// Haskell's named ASCII escapes that the suite could use.
const NAMED_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '0': '\0' };

// Haskell's ASCII control escapes, by code (\NUL is 0 ... \US is 31), then \SP and \DEL.
const ASCII_NAMES = (
  'NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ' +
  'ESC FS GS RS US SP DEL'
).split(' ');

export class LexError extends Error {}

export function lex(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let lastLine = 0;
  const push = (kind: TokenKind, text: string, startLine: number, startCol: number, quoter?: string) => {
    out.push({ kind, text, line: startLine, col: startCol, bol: startLine !== lastLine, quoter });
    lastLine = startLine;
  };
  const advanceLines = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      if (src[k] === '\n') {
        line++;
        lineStart = k + 1;
      }
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // Line comment: `--` not part of a longer operator such as `-->`.
    if (c === '-' && src[i + 1] === '-') {
      let j = i;
      while (src[j] === '-') j++;
      if (j >= src.length || !SYMBOL.test(src[j]!)) {
        while (i < src.length && src[i] !== '\n') i++;
        continue;
      }
    }
    if (c === '{' && src[i + 1] === '-') {
      let depth = 0;
      let j = i;
      do {
        if (src.startsWith('{-', j)) {
          depth++;
          j += 2;
        } else if (src.startsWith('-}', j)) {
          depth--;
          j += 2;
        } else j++;
      } while (depth > 0 && j < src.length);
      advanceLines(i, j);
      i = j;
      continue;
    }
    const col = i - lineStart + 1;
    const startLine = line;
    const qq = /^\[([A-Za-z][A-Za-z0-9_']*)\|/.exec(src.slice(i, i + 40));
    if (qq) {
      const end = src.indexOf('|]', i + qq[0].length);
      if (end < 0) throw new LexError(`line ${line}: unterminated quasi-quote`);
      push('qq', src.slice(i + qq[0].length, end), startLine, col, qq[1]);
      advanceLines(i, end + 2);
      i = end + 2;
      continue;
    }
    if (c === '"') {
      const [value, end] = readString(src, i + 1, line);
      push('str', value, startLine, col);
      advanceLines(i, end);
      i = end;
      continue;
    }
    if (c === "'" && (i === 0 || !IDENT.test(src[i - 1]!))) {
      const close = src[i + 1] === '\\' ? src.indexOf("'", i + 2) : i + 2;
      if (src[close] === "'") {
        const body = src.slice(i + 1, close);
        push('char', body.startsWith('\\') ? (NAMED_ESCAPES[body[1]!] ?? body.slice(1)) : body, startLine, col);
        i = close + 1;
        continue;
      }
    }
    if (/[0-9]/.test(c)) {
      const m = /^(0x[0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9]+)?([eE][+-]?[0-9]+)?)/.exec(src.slice(i))!;
      push('num', m[0].replace(/_/g, ''), startLine, col);
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      // Qualified names (`T.pack`, `Feature.Query.RpcSpec.spec`) are one token.
      const m = /^(?:[A-Z][A-Za-z0-9_']*\.)*[A-Za-z_][A-Za-z0-9_']*/.exec(src.slice(i))!;
      const word = m[0];
      const last = word.slice(word.lastIndexOf('.') + 1);
      const kind: TokenKind = KEYWORDS.has(word) ? 'kw' : /^[A-Z]/.test(last) ? 'con' : 'var';
      push(kind, word, startLine, col);
      i += word.length;
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      push('bt', src.slice(i + 1, end).trim(), startLine, col);
      i = end + 1;
      continue;
    }
    if ('()[]{},;'.includes(c)) {
      push('special', c, startLine, col);
      i++;
      continue;
    }
    if (SYMBOL.test(c)) {
      let j = i;
      while (j < src.length && SYMBOL.test(src[j]!)) j++;
      push('op', src.slice(i, j), startLine, col);
      i = j;
      continue;
    }
    throw new LexError(`line ${line}: unexpected character ${JSON.stringify(c)}`);
  }
  return out;
}

/** A string literal's value from after its opening quote; returns the value and the index after the closing quote. */
function readString(src: string, from: number, line: number): [string, number] {
  let out = '';
  let i = from;
  for (;;) {
    const c = src[i];
    if (c === undefined || c === '\n') throw new LexError(`line ${line}: unterminated string`);
    if (c === '"') return [out, i + 1];
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = src[i + 1]!;
    if (/\s/.test(e)) {
      // A string gap: backslash, white space (line breaks included), backslash.
      const close = src.indexOf('\\', i + 1);
      i = close + 1;
    } else if (e === '&') {
      i += 2;
    } else if (/[0-9]/.test(e)) {
      const m = /^[0-9]+/.exec(src.slice(i + 1))!;
      out += String.fromCodePoint(Number(m[0]));
      i += 1 + m[0].length;
    } else if (e === 'x') {
      const m = /^[0-9a-fA-F]+/.exec(src.slice(i + 2))!;
      out += String.fromCodePoint(Number.parseInt(m[0], 16));
      i += 2 + m[0].length;
    } else if (/[A-Z]/.test(e)) {
      const name = /^[A-Z]+[0-9]?/.exec(src.slice(i + 1))![0];
      // The longest ASCII control name that matches (\SOH before \SO), as Haskell reads it.
      const hit = ASCII_NAMES.filter((n) => name.startsWith(n)).sort((a, b) => b.length - a.length)[0];
      if (hit === undefined) throw new LexError(`line ${line}: unknown string escape \\${name}`);
      out += String.fromCharCode(hit === 'DEL' ? 127 : hit === 'SP' ? 32 : ASCII_NAMES.indexOf(hit));
      i += 1 + hit.length;
    } else if (NAMED_ESCAPES[e] !== undefined) {
      out += NAMED_ESCAPES[e];
      i += 2;
    } else {
      throw new LexError(`line ${line}: unknown string escape \\${e}`);
    }
  }
}
