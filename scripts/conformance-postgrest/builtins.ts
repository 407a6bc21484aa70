// The names the spec files use from hspec (describe, it, ...), hspec-wai (request, get, ...), http-types (methods,
// header names) and PostgREST's SpecHelper (acceptHdrs, authHeaderJWT, matchContentTypeJson, ...), each with the
// meaning its definition has there. A name not here is untranslatable.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from './cases.js';
import { contentTypeIs, headerAbsent, headerContains, headerIs, headerMatches } from './checks.js';
import { Env, type ExprThunk, examplesIn } from './evaluator.js';
import { aesonEncode } from './json-quote.js';
import {
  type SpecItem,
  type Thunk,
  Untranslatable,
  type Val,
  bytesOf,
  fn,
  listOf,
  numOf,
  ready,
  str,
  textOf,
  unit,
} from './values.js';

// SpecHelper's JWT secret (baseCfg's, and generateSecret's base64).
const SECRET = 'reallyreallyreallyreallyverysafe';
const ID = new Set(['liftIO', 'void', 'parallel', 'toS', 'encodeUtf8', 'decodeUtf8', 'T.pack', 'BL.fromStrict', 'mk']);

const tuple = (a: string, b: string): Val => ({ t: 'tuple', items: [str(a), str(b)] });
const check = (c: Check): Val => ({ t: 'check', check: c });

/** A header name from http-types' spelling: hContentType -> Content-Type, hWWWAuthenticate -> WWW-Authenticate. */
function headerName(h: string): string {
  return h.slice(1).replace(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/g, '-');
}

/** PostgREST's pgVersionNNN constants: pgVersion150 is 15.0 (150000), pgVersion96 is 9.6 (90600). */
function pgVersion(name: string): number | null {
  const m = /^pgVersion(\d+)$/.exec(name);
  if (!m) return null;
  const d = m[1]!;
  const major = d.length === 3 ? Number(d.slice(0, 2)) : Number(d[0]);
  const minor = Number(d.slice(d.length === 3 ? 2 : 1));
  return major >= 10 ? major * 10000 + minor : major * 10000 + minor * 100;
}

function jwt(claims: Val, secret: Buffer | string): string {
  const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');
  const payload = claims.t === 'json' ? aesonEncode(claims.v) : textOf(claims);
  const head = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(payload)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

function renderRange(r: Val): string {
  if (r.t !== 'con') throw new Untranslatable('a range that is not a ByteRange');
  const [a, b] = r.args.map(numOf);
  if (r.name === 'ByteRangeFromTo') return `${a}-${b}`;
  if (r.name === 'ByteRangeFrom') return `${a}-`;
  if (r.name === 'ByteRangeSuffix') return `-${a}`;
  throw new Untranslatable(`range ${r.name}`);
}

function requestOf(method: Val, path: Val, headers: Val, body: Val): Val {
  const list = listOf(headers).map((h) => {
    if (h.t !== 'tuple' || h.items.length !== 2) throw new Untranslatable('a header that is not a pair');
    return [textOf(h.items[0]!), textOf(h.items[1]!)] as const;
  });
  const bytes = body.t === 'json' ? Buffer.from(aesonEncode(body.v)) : bytesOf(body);
  return { t: 'request', request: { method: textOf(method), path: textOf(path), headers: list, body: bytes } };
}

/** Marks the examples of a spec value with a path prefix or a configuration; a failure counts its examples. */
function specOf(body: Thunk, map: (item: SpecItem) => SpecItem): Val {
  let v: Val;
  try {
    v = body.force();
  } catch (e) {
    const expr = (body as ExprThunk).expr;
    const names = expr ? examplesIn(expr) : [];
    const reason = e instanceof Untranslatable ? e.message : `internal: ${(e as Error).message}`;
    return { t: 'spec', items: names.map((n) => map({ kind: 'skip', path: [n], reason })) };
  }
  if (v.t === 'unit') return { t: 'spec', items: [] };
  if (v.t !== 'spec') throw new Untranslatable(`a spec that is ${v.t}`);
  return { t: 'spec', items: v.items.map(map) };
}

const unit0: Val = { t: 'list', items: [] };

export function rootEnv(fixtures: string): Env {
  const defs: Record<string, Val> = {
    describe: fn('describe', 2, ([name, body]) => {
      const n = textOf(name!.force());
      return specOf(body!, (i) => ({ ...i, path: [n, ...i.path] }));
    }),
    it: fn('it', 2, ([name, body]) => {
      const n = textOf(name!.force());
      try {
        const v = body!.force();
        if (v.t === 'request')
          return {
            t: 'spec',
            items: [{ kind: 'it', path: [n], steps: [{ kind: 'respond', request: v.request, checks: [] }] }],
          };
        if (v.t !== 'steps') throw new Untranslatable(`an example whose body is ${v.t}`);
        return { t: 'spec', items: [{ kind: 'it', path: [n], steps: v.steps }] };
      } catch (e) {
        const reason = e instanceof Untranslatable ? e.message : `internal: ${(e as Error).message}`;
        return { t: 'spec', items: [{ kind: 'skip', path: [n], reason }] };
      }
    }),
    pendingWith: fn('pendingWith', 1, () => {
      throw new Untranslatable('pending in the suite');
    }),
    when: fn('when', 2, ([c, x]) => (bool(c!.force()) ? x!.force() : unit)),
    unless: fn('unless', 2, ([c, x]) => (bool(c!.force()) ? unit : x!.force())),
    pure: fn('pure', 1, ([x]) => x!.force()),
    return: fn('return', 1, ([x]) => x!.force()),
    mempty: str(''),
    request: fn('request', 4, ([m, p, h, b]) => requestOf(m!.force(), p!.force(), h!.force(), b!.force())),
    get: fn('get', 1, ([p]) => requestOf(str('GET'), p!.force(), unit0, str(''))),
    delete: fn('delete', 1, ([p]) => requestOf(str('DELETE'), p!.force(), unit0, str(''))),
    options: fn('options', 1, ([p]) => requestOf(str('OPTIONS'), p!.force(), unit0, str(''))),
    post: fn('post', 2, ([p, b]) => requestOf(str('POST'), p!.force(), unit0, b!.force())),
    put: fn('put', 2, ([p, b]) => requestOf(str('PUT'), p!.force(), unit0, b!.force())),
    patch: fn('patch', 2, ([p, b]) => requestOf(str('PATCH'), p!.force(), unit0, b!.force())),
    simpleBody: fn('simpleBody', 1, ([r]) => part(r!.force(), 'body')),
    simpleHeaders: fn('simpleHeaders', 1, ([r]) => part(r!.force(), 'headers')),
    simpleStatus: fn('simpleStatus', 1, ([r]) => part(r!.force(), 'status')),
    acceptHdrs: fn('acceptHdrs', 1, ([m]) => ({ t: 'list', items: [tuple('Accept', textOf(m!.force()))] })),
    rangeUnit: tuple('Range-Unit', 'items'),
    rangeHdrs: fn('rangeHdrs', 1, ([r]) => ({
      t: 'list',
      items: [tuple('Range-Unit', 'items'), tuple('Range', renderRange(r!.force()))],
    })),
    rangeHdrsWithCount: fn('rangeHdrsWithCount', 1, ([r]) => ({
      t: 'list',
      items: [tuple('Prefer', 'count=exact'), tuple('Range-Unit', 'items'), tuple('Range', renderRange(r!.force()))],
    })),
    planHdr: tuple('Accept', 'application/vnd.pgrst.plan+json'),
    authHeader: fn('authHeader', 2, ([t, c]) => tuple('Authorization', `${textOf(t!.force())} ${textOf(c!.force())}`)),
    authHeaderJWT: fn('authHeaderJWT', 1, ([c]) => tuple('Authorization', `Bearer ${textOf(c!.force())}`)),
    generateSecret: str(SECRET),
    generateJWT: fn('generateJWT', 1, ([c]) => str(jwt(c!.force(), SECRET))),
    generateJWTWithSecret: fn('generateJWTWithSecret', 2, ([c, s]) => str(jwt(c!.force(), bytesOf(s!.force())))),
    readFixtureFile: fn('readFixtureFile', 1, ([f]) => {
      const bytes = readFileSync(join(fixtures, textOf(f!.force())));
      return { t: 'str', v: bytes.toString('latin1'), bytes };
    }),
    getInsertDataForTiobePlsTable: fn('getInsertDataForTiobePlsTable', 1, ([n]) => {
      const rows = [];
      for (let i = 20; i <= numOf(n!.force()) + 20; i++) rows.push({ name: `Lang ${i}`, rank: i });
      return str(aesonEncode(rows));
    }),
    'JSON.encode': fn('JSON.encode', 1, ([v]) => {
      const x = v!.force();
      if (x.t !== 'json') throw new Untranslatable('JSON.encode of a Haskell value');
      return str(aesonEncode(x.v));
    }),
    fromList: fn('fromList', 1, ([x]) => x!.force()),
    baseCfg: { t: 'cfg', fields: {} },
    matchContentTypeJson: check(contentTypeIs('application/json; charset=utf-8')),
    matchContentTypeSingular: check(contentTypeIs('application/vnd.pgrst.object+json; charset=utf-8')),
    matchCTArrayStrip: check(contentTypeIs('application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8')),
    matchCTSingularStrip: check(contentTypeIs('application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8')),
    matchHeaderAbsent: fn('matchHeaderAbsent', 1, ([n]) => check(headerAbsent(textOf(n!.force())))),
    matchHeaderValuePresent: fn('matchHeaderValuePresent', 2, ([n, v]) =>
      check(headerContains(textOf(n!.force()), textOf(v!.force()))),
    ),
    matchServerTimingHasTiming: fn('matchServerTimingHasTiming', 1, ([m]) => {
      const metric = textOf(m!.force());
      return check(
        headerMatches('Server-Timing', `${metric};dur=[[:digit:]]+.[[:digit:]]+`, `Server-Timing with ${metric}`),
      );
    }),
    // Predicates on a bound response's headers (for shouldSatisfy).
    matchHeader: fn('matchHeader', 3, ([n, re, h]) =>
      onHeaders(h!, headerMatches(textOf(n!.force()), textOf(re!.force()))),
    ),
    // `notElem mempty`: no header line with an empty name and value.
    noBlankHeader: fn('noBlankHeader', 1, ([h]) =>
      onHeaders(h!, {
        kind: 'header:(blank)',
        expected: 'no blank header',
        test: (res) => (res.headers.some(([k, v]) => k === '' && v === '') ? 'a blank header' : null),
      }),
    ),
    noProfileHeader: fn('noProfileHeader', 1, ([h]) => onHeaders(h!, headerAbsent('Content-Profile'))),
    notZeroContentLength: fn('notZeroContentLength', 1, ([h]) =>
      onHeaders(h!, {
        kind: 'header:content-length',
        expected: 'Content-Length other than 0',
        test: (res) => {
          const v = res.headers.find(([k]) => k === 'content-length')?.[1];
          return v !== undefined && v !== '0' ? null : `Content-Length: ${v ?? '(absent)'}`;
        },
      }),
    ),
    elem: fn('elem', 2, ([x, h]) => {
      const pair = x!.force();
      if (pair.t !== 'tuple') throw new Untranslatable('elem of a non-header');
      return onHeaders(h!, headerIs(textOf(pair.items[0]!), textOf(pair.items[1]!)));
    }),
  };
  for (const id of ID) defs[id] = fn(id, 1, ([x]) => x!.force());
  for (const [m, v] of Object.entries({ Get: 'GET', Post: 'POST', Put: 'PUT', Patch: 'PATCH', Delete: 'DELETE' }))
    defs[`method${m}`] = str(v);
  defs.methodHead = str('HEAD');
  defs.methodOptions = str('OPTIONS');
  defs.context = defs.describe!;
  defs.specify = defs.it!;
  defs.forM_ = fn('forM_', 2, ([xs, f]) => each(listOf(xs!.force()), f!.force()));
  defs.mapM_ = fn('mapM_', 2, ([f, xs]) => each(listOf(xs!.force()), f!.force()));
  const env = new Env(null, (name) => {
    if (/^h[A-Z]/.test(name)) return ready(str(headerName(name)));
    const v = pgVersion(name);
    if (v !== null) return ready({ t: 'num', v });
    // http-types' statuses (ok200, status404, badRequest400) are compared by their code.
    const status = /^[a-z][A-Za-z]*([1-5]\d\d)$/.exec(name);
    return status ? ready({ t: 'num', v: Number(status[1]) }) : undefined;
  });
  for (const [k, v] of Object.entries(defs)) env.set(k, ready(v));
  env.set('pending', {
    force: () => {
      throw new Untranslatable('pending in the suite');
    },
  });
  return env;
}

function bool(v: Val): boolean {
  if (v.t !== 'bool') throw new Untranslatable(`a condition that is ${v.t}`);
  return v.v;
}

function part(r: Val, p: 'body' | 'headers' | 'status'): Val {
  if (r.t === 'response' && r.part === 'all') return { ...r, part: p };
  throw new Untranslatable(`simple${p} of ${r.t}`);
}

function onHeaders(h: Thunk, c: Check): Val {
  const r = h.force();
  if (r.t !== 'response' || r.part !== 'headers') throw new Untranslatable('a header predicate on computed headers');
  return { t: 'check', check: c };
}

/** forM_/mapM_ over spec items or test steps. */
function each(xs: readonly Val[], f: Val): Val {
  if (f.t !== 'fn') throw new Untranslatable('forM_ with a non-function');
  const vals = xs.map((x) => f.apply(ready(x)));
  if (vals.every((v) => v.t === 'spec'))
    return { t: 'spec', items: vals.flatMap((v) => (v.t === 'spec' ? v.items : [])) };
  if (vals.every((v) => v.t === 'steps'))
    return { t: 'steps', steps: vals.flatMap((v) => (v.t === 'steps' ? v.steps : [])) };
  throw new Untranslatable('forM_ over mixed actions');
}

export { specOf };
