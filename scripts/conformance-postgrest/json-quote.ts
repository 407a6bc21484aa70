// The JSON of the suite's `[json|...|]` and `[aesonQQ|...|]` quasi-quotes: JSON plus object keys written without
// quotes. `#{expr}` interpolates a Haskell value; the runner does not evaluate those (the value is usually the
// current time), so a quote holding one is reported as untranslatable.

export class JsonQuoteError extends Error {}

export function parseJsonQuote(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new JsonQuoteError(`${what} at offset ${i} of ${JSON.stringify(text.slice(0, 60))}`);
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        let key: string;
        if (text[i] === '"') key = string();
        else {
          const m = /^[A-Za-z_][A-Za-z0-9_']*/.exec(text.slice(i));
          if (!m) fail('expected a key');
          key = m![0];
          i += key.length;
        }
        ws();
        if (text[i] !== ':') fail('expected :');
        i++;
        obj[key] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return obj;
        } else fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return arr;
        } else fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    if (c === '#' && text[i + 1] === '{') fail('interpolation #{...} is not evaluated');
    const m = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) fail('expected a value');
    i += m![0].length;
    return JSON.parse(m![0]);
  };
  const string = (): string => {
    const m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(i));
    if (!m) fail('unterminated string');
    i += m![0].length;
    return JSON.parse(m![0].replace(/[\n\r\t]/g, (ch) => JSON.stringify(ch).slice(1, -1))) as string;
  };
  const out = value();
  ws();
  if (i < text.length) fail('text after the value');
  return out;
}

/** JSON text as aeson's `encode` writes it: compact, object keys in sorted order (aeson's KeyMap is a Map). */
export function aesonEncode(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(aesonEncode).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${aesonEncode((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Equality of decoded JSON values, as aeson compares them (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, k) => jsonEqual(x, b[k]));
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => k in bo && jsonEqual((a as Record<string, unknown>)[k], bo[k]));
}
