// The translator of PostgREST's hspec-wai suite, held without a checkout: small spec modules written here in the
// suite's idioms go in, cases (requests, checks, PGRST_* configuration) or reasons for not translating come out,
// and the checks are applied to responses made up here to show they mean what hspec-wai means.
import { describe, expect, it } from 'vitest';
import type { HttpResponse, SuiteCase, TranslatedCase } from './cases.js';
import { lex } from './hs-lexer.js';
import { wireTarget } from './http-client.js';
import { type SpecEntry, specEntries, translateModule } from './translate.js';

const ENTRY: SpecEntry = { label: 'Feature.WidgetSpec', module: 'Feature.WidgetSpec', fn: 'spec', args: [] };

const module = (body: string, signature = 'spec withConfig') =>
  `module Feature.WidgetSpec where\n\nimport Test.Hspec\nimport SpecHelper\n\nspec :: SpecWithConfig\n${signature} = ${body}\n`;

const translated = (cases: SuiteCase[]): TranslatedCase[] =>
  cases.filter((c): c is TranslatedCase & { kind: 'translated' } => c.kind === 'translated');

const response = (status: number, headers: [string, string][], body: string): HttpResponse => ({
  status,
  headers: headers.map(([k, v]) => [k.toLowerCase(), v] as const),
  body: Buffer.from(body),
});

/** The failures of every check of a case's first step against a response. */
function failures(c: TranslatedCase, res: HttpResponse): string[] {
  const step = c.steps[0]!;
  if (step.kind !== 'respond') throw new Error('not a request step');
  return step.checks.flatMap((k) => k.test(res) ?? []);
}

describe('lexer', () => {
  it('reads Haskell string escapes and gaps, quasi-quotes as raw text, and drops comments', () => {
    const tokens = lex('x = "a\\"b\\n\\\n   \\c\\SOH\\&1" -- a comment\n  {- block -} [json|{"k": 1}|]');
    expect(tokens.map((t) => [t.kind, t.text])).toEqual([
      ['var', 'x'],
      ['op', '='],
      ['str', 'a"b\nc\u00011'],
      ['qq', '{"k": 1}'],
    ]);
    expect(tokens[3]!.quoter).toBe('json');
  });
});

describe('translation of examples', () => {
  it('turns request ... `shouldRespondWith` a JSON quote with its record fields into one request and its checks', () => {
    const src = module(`withConfig baseCfg $ describe "widgets" $ do
  let single = ("Accept", "application/vnd.pgrst.object+json")
  it "reads one widget" $
    request methodGet "/widgets?id=eq.7" [single, ("Prefer", "count=exact"), ("Prefer", "tx=commit")] ""
      \`shouldRespondWith\` [json| { id: 7, "name": "gear" } |]
      { matchStatus = 200
      , matchHeaders = [matchContentTypeSingular, "Content-Range" <:> "0-0/1"] }`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    expect(c!.path).toEqual(['Feature.WidgetSpec', 'widgets', 'reads one widget']);
    const step = c!.steps[0]!;
    expect(step.kind === 'respond' && step.request).toMatchObject({
      method: 'GET',
      path: '/widgets?id=eq.7',
      headers: [
        ['Accept', 'application/vnd.pgrst.object+json'],
        ['Prefer', 'count=exact'],
        ['Prefer', 'tx=commit'],
      ],
    });
    const ok = response(
      200,
      [
        ['Content-Type', 'application/vnd.pgrst.object+json; charset=utf-8'],
        ['Content-Range', '0-0/1'],
      ],
      '{"name":"gear","id":7.0}',
    );
    expect(failures(c!, ok)).toEqual([]);
    // matchHeaders replaces hspec-wai-json's own application/json check; the given ones still hold.
    const wrong = response(200, [['Content-Type', 'application/json; charset=utf-8']], '{"id":7,"name":"gear"}');
    expect(failures(c!, wrong)).toEqual(['Content-Type: application/json; charset=utf-8', 'Content-Range: (absent)']);
  });

  it('gives a bare JSON quote the application/json check, a string an exact body, a number only a status', () => {
    const src = module(`withConfig baseCfg $ do
  it "json" $ get "/a" \`shouldRespondWith\` [json|[1,2]|]
  it "text" $ get "/b" \`shouldRespondWith\` "x,y"
  it "status" $ post "/c" [json|{"v": true}|] \`shouldRespondWith\` 404`);
    const [json, text, status] = translated(translateModule(src, ENTRY, 150000));
    expect(failures(json!, response(200, [['Content-Type', 'application/json']], '[1, 2]'))).toEqual([]);
    expect(failures(json!, response(200, [['Content-Type', 'text/csv']], '[1,2]'))).toEqual(['Content-Type: text/csv']);
    expect(failures(text!, response(200, [], 'x,y'))).toEqual([]);
    expect(failures(text!, response(200, [], 'x,y\n'))).toEqual(['body differs']);
    expect(failures(status!, response(404, [], 'anything'))).toEqual([]);
    const post = status!.steps[0]!;
    expect(post.kind === 'respond' && post.request.body.toString()).toBe('{"v":true}');
  });

  it('reads [str|...|] with its | edges', () => {
    const src = module(`withConfig baseCfg $
  it "csv" $ get "/lines" \`shouldRespondWith\`
    [str|a,b
        |1,2
        |]`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    expect(failures(c!, response(200, [], 'a,b\n1,2\n'))).toEqual([]);
  });

  it('keeps the line feed of a [str|...|] opened at the end of its line', () => {
    const src = module(`withConfig baseCfg $
  it "html" $ get "/page" \`shouldRespondWith\`
    [str|
        |<p>
        |]`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    expect(failures(c!, response(200, [], '\n<p>\n'))).toEqual([]);
    expect(failures(c!, response(200, [], '<p>\n'))).toEqual(['body differs']);
  });

  it('checks a header a bound response shouldContain', () => {
    const src = module(`withConfig baseCfg $
  it "png" $ do
    r <- request methodGet "/rpc/img" [] ""
    liftIO $ do
      simpleHeaders r \`shouldContain\` [("Content-Type", "image/png")]`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    const [, header] = c!.steps;
    expect(
      header!.kind === 'check' && header!.check.test(response(200, [['Content-Type', 'image/png']], '')),
    ).toBeNull();
    expect(
      header!.kind === 'check' && header!.check.test(response(200, [['Content-Type', 'text/plain']], '')),
    ).not.toBeNull();
  });

  it('keeps a response bound with <- and checks its headers with SpecHelper predicates', () => {
    const src = module(`withConfig baseCfg $
  it "times" $ do
    r <- request methodGet "/widgets" [] ""
    liftIO $ do
      simpleHeaders r \`shouldSatisfy\` matchHeader "X-Thing" "^a[[:digit:]]+$"
      simpleStatus r \`shouldBe\` ok200`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    expect(c!.steps.map((s) => s.kind)).toEqual(['respond', 'check', 'check']);
    const [, header, status] = c!.steps;
    const res = response(200, [['X-Thing', 'a42']], '');
    expect(header!.kind === 'check' && header!.check.test(res)).toBeNull();
    expect(header!.kind === 'check' && header!.check.test(response(200, [['X-Thing', 'b42']], ''))).toBe(
      'X-Thing: b42',
    );
    expect(status!.kind === 'check' && status!.check.test(res)).toBeNull();
  });

  it('applies an operator at a do block’s own column to the whole block, as GHC’s layout rule does', () => {
    const src = module(`withConfig baseCfg $
  it "last statement" $ do
    let auth = authHeaderJWT "tok"
    request methodGet "/private" [auth] ""
    \`shouldRespondWith\` 401`);
    const [c] = translated(translateModule(src, ENTRY, 150000));
    const step = c!.steps[0]!;
    expect(step.kind === 'respond' && step.request.headers).toEqual([['Authorization', 'Bearer tok']]);
    expect(failures(c!, response(401, [], ''))).toEqual([]);
  });

  it('counts an example it cannot evaluate as not translated, with the reason, and keeps its siblings', () => {
    const src = module(`withConfig baseCfg $ describe "mixed" $ do
  it "uses a lens" $ do
    r <- get "/"
    liftIO $ (simpleBody r ^? key "paths") \`shouldBe\` Nothing
  it "plain" $ get "/a" \`shouldRespondWith\` 200
  it "interpolates" $ get "/b" \`shouldRespondWith\` [json|{"t": #{now}}|]`);
    const cases = translateModule(src, ENTRY, 150000);
    expect(cases.map((c) => [c.path[2], c.kind === 'untranslated' ? c.reason : 'ok'])).toEqual([
      ['uses a lens', 'operator ^?'],
      ['plain', 'ok'],
      ['interpolates', expect.stringContaining('interpolation')],
    ]);
  });

  it('follows `when` on the PostgreSQL version the suite is given', () => {
    const src = module(
      `withConfig baseCfg $ do
  when (actualPgVersion >= pgVersion140) $
    it "new" $ get "/new" \`shouldRespondWith\` 200
  it "always" $ get "/old" \`shouldRespondWith\` 200`,
      'spec actualPgVersion withConfig',
    );
    const entry = { ...ENTRY, args: ['actualPgVersion'] };
    expect(translateModule(src, entry, 150002).map((c) => c.path[1])).toEqual(['new', 'always']);
    expect(translateModule(src, entry, 130010).map((c) => c.path[1])).toEqual(['always']);
  });
});

describe('configurations', () => {
  it('maps baseCfg and its record updates to PGRST_* variables', () => {
    const src = module(`do
  withConfig baseCfg $ it "base" $ get "/" \`shouldRespondWith\` 200
  withConfig (baseCfg { configDbMaxRows = Just 3, configDbSchemas = fromList ["v1", "v2"]
                      , configDbPreRequest = Just $ QualifiedIdentifier mempty "hook"
                      , configDbTxAllowOverride = False, configDbAnonRole = Nothing }) $
    it "custom" $ get "/" \`shouldRespondWith\` 200
  withConfig baseCfg { configUrlUseLegacyTargetNames = False } $
    it "internal" $ get "/" \`shouldRespondWith\` 200`);
    const cases = translateModule(src, ENTRY, 150000);
    const [base, custom] = translated(cases);
    expect(base!.config.env).toMatchObject({
      PGRST_DB_SCHEMAS: 'test',
      PGRST_DB_ANON_ROLE: 'postgrest_test_anonymous',
      PGRST_DB_PRE_REQUEST: 'test.switch_role',
      PGRST_DB_TX_END: 'rollback-allow-override',
      PGRST_JWT_SECRET: 'reallyreallyreallyreallyverysafe',
    });
    expect(custom!.config.env).toMatchObject({
      PGRST_DB_MAX_ROWS: '3',
      PGRST_DB_SCHEMAS: 'v1,v2',
      PGRST_DB_PRE_REQUEST: 'hook',
      PGRST_DB_TX_END: 'rollback',
    });
    expect(custom!.config.env.PGRST_DB_ANON_ROLE).toBeUndefined();
    expect(custom!.config.key).not.toBe(base!.config.key);
    expect(cases[2]).toMatchObject({
      kind: 'untranslated',
      reason: expect.stringContaining('configUrlUseLegacyTargetNames'),
    });
  });
});

describe('Main.hs', () => {
  it('lists the spec functions it runs, with their arguments and labels', () => {
    const main = `module Main where
main :: IO ()
main = do
  let specs = uncurry describeWithConfig <$> [
          ("Feature.A", Feature.A.spec)
        , ("Feature.B.x", Feature.B.disallowed)
        , ("Feature.C", Feature.C.spec actualPgVersion)
        ]
  hspec $ do
    mapM_ parallel specs
    describe "Feature.D" $ Feature.D.spec withConfigDbs
`;
    expect(specEntries(main)).toEqual([
      { label: 'Feature.A', module: 'Feature.A', fn: 'spec', args: [] },
      { label: 'Feature.B.x', module: 'Feature.B', fn: 'disallowed', args: [] },
      { label: 'Feature.C', module: 'Feature.C', fn: 'spec', args: ['actualPgVersion'] },
      { label: 'Feature.D', module: 'Feature.D', fn: 'spec', args: [] },
    ]);
  });
});

describe('request targets', () => {
  it('percent-encodes what HTTP does not allow in a target and adds a missing leading slash', () => {
    expect(wireTarget('/books?select=title&authors.name=eq.George Orwell')).toBe(
      '/books?select=title&authors.name=eq.George%20Orwell',
    );
    expect(wireTarget('/تست?select=*')).toBe(`/${encodeURIComponent('تست')}?select=*`);
    expect(wireTarget('items?id=eq.1')).toBe('/items?id=eq.1');
  });
});
