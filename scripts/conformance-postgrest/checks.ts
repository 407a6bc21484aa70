// hspec-wai's response checks with its semantics: a status is compared exactly; `name <:> value` wants a header
// line with exactly that value; a `[json|...|]` body is compared as decoded JSON and also wants a Content-Type of
// application/json (hspec-wai-json's matcher), unless the test gives its own matchHeaders; a string body is
// compared byte for byte. The SpecHelper checks (matchContentTypeJson and the like) are PostgREST's own.
import type { Check, HttpResponse } from './cases.js';
import { jsonEqual } from './json-quote.js';

const lookupAll = (res: HttpResponse, name: string) =>
  res.headers.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v);

export function statusIs(status: number): Check {
  return {
    kind: 'status',
    expected: `status ${status}`,
    test: (res) => (res.status === status ? null : `status ${res.status}, expected ${status}`),
  };
}

export function bodyJson(value: unknown): Check {
  return {
    kind: 'body',
    expected: JSON.stringify(value),
    test(res) {
      let actual: unknown;
      try {
        actual = JSON.parse(res.body.toString('utf8'));
      } catch {
        return 'body is not JSON';
      }
      return jsonEqual(actual, value) ? null : 'body differs';
    },
  };
}

export function bodyBytes(bytes: Buffer): Check {
  return {
    kind: 'body',
    expected: bytes.toString('utf8'),
    test: (res) => (res.body.equals(bytes) ? null : 'body differs'),
  };
}

/** `name <:> value`. */
export function headerIs(name: string, value: string): Check {
  return {
    kind: `header:${name.toLowerCase()}`,
    expected: `${name}: ${value}`,
    test: (res) => {
      const got = lookupAll(res, name);
      return got.includes(value) ? null : `${name}: ${got.length ? got.join(' | ') : '(absent)'}`;
    },
  };
}

/** SpecHelper's filterAndMatchCT: exactly one Content-Type line, equal to `value`. */
export function contentTypeIs(value: string): Check {
  return {
    kind: 'header:content-type',
    expected: `Content-Type: ${value}`,
    test: (res) => {
      const got = lookupAll(res, 'content-type');
      return got.length === 1 && got[0] === value ? null : `Content-Type: ${got.join(' | ') || '(absent)'}`;
    },
  };
}

/** hspec-wai-json's own header check of a `[json|...|]` matcher: the media type is application/json. */
export const jsonContentType: Check = {
  kind: 'header:content-type',
  expected: 'Content-Type: application/json',
  test: (res) => {
    const got = lookupAll(res, 'content-type')[0];
    return got !== undefined && got.split(';')[0] === 'application/json' ? null : `Content-Type: ${got ?? '(absent)'}`;
  },
};

export function headerAbsent(name: string): Check {
  return {
    kind: `header:${name.toLowerCase()}`,
    expected: `no ${name} header`,
    test: (res) => {
      const got = lookupAll(res, name);
      return got.length === 0 ? null : `${name}: ${got.join(' | ')}`;
    },
  };
}

/** SpecHelper's matchHeaderValuePresent: the header's (first) value contains `part`. */
export function headerContains(name: string, part: string): Check {
  return {
    kind: `header:${name.toLowerCase()}`,
    expected: `${name} containing ${part}`,
    test: (res) => {
      const got = lookupAll(res, name)[0];
      return got?.includes(part) ? null : `${name}: ${got ?? '(absent)'}`;
    },
  };
}

/**
 * SpecHelper's matchHeader and matchServerTimingHasTiming: the first value of the header matches a POSIX regular
 * expression (regex-tdfa's `=~` searches, it is not anchored).
 */
export function headerMatches(name: string, posix: string, what = `${name} matching ${posix}`): Check {
  const re = new RegExp(posixToJs(posix));
  return {
    kind: `header:${name.toLowerCase()}`,
    expected: what,
    test: (res) => {
      const got = lookupAll(res, name)[0];
      return got !== undefined && re.test(got) ? null : `${name}: ${got ?? '(absent)'}`;
    },
  };
}

/** POSIX bracket classes to their JavaScript equivalents; the rest of the suite's patterns mean the same in both. */
function posixToJs(re: string): string {
  return re
    .replace(/\[\[:digit:\]\]/g, '[0-9]')
    .replace(/\[:digit:\]/g, '0-9')
    .replace(/\[:alpha:\]/g, 'A-Za-z')
    .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
    .replace(/\[:space:\]/g, '\\s');
}
