// postgrest-js's own type tests (test/**/*.test-d.ts) compiled with our generated types in place of the types file
// upstream commits: a copy of upstream's src and test in a temp dir, our output written over test/types.generated.ts
// (the hand-made override files upstream keeps beside it import that file and stay as they are), then the TypeScript
// compiler over the test-d files. Upstream runs them with tstyche; they assert with `expectType`/`TypeEqual` and
// `@ts-expect-error` (an unused one is an error), so a plain compile with the same strict options checks the same.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixtureTypes, UPSTREAM, upstreamPresent, warnIfNoUpstream } from './postgrest-js-upstream.js';

warnIfNoUpstream('typegen-type-tests');

/** Packages the type tests import (type-fest, zod) and the Node types their tsconfig names, linked into the copy. */
const LINKED_PACKAGES = ['type-fest', 'zod', '@types/node'];

/** Upstream's tsconfig.tstyche.json, minus jest's types (no test-d file uses them). */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  target: ts.ScriptTarget.ES2020,
  lib: ['lib.es2022.d.ts'],
  types: ['node'],
  esModuleInterop: true,
  forceConsistentCasingInFileNames: true,
};

function typeTestFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test-d.ts'))
    .map((f) => join(dir, f))
    .sort();
}

function linkPackages(root: string): void {
  const require = createRequire(import.meta.url);
  for (const name of LINKED_PACKAGES) {
    const target = join(root, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(dirname(require.resolve(`${name}/package.json`)), target, 'dir');
  }
}

/**
 * Test files that cannot compile with the CLI's output, each with the reason. The rest must compile, these must
 * fail (so the list stays true) and must compile once upstream's hand edit of the types file is applied.
 */
const KNOWN_FAILURES: Record<string, string> = {
  'test/override-types.test-d.ts':
    "its expected types assume upstream's hand-edited `Json = unknown`: type-fest's MergeDeep of the CLI's Json " +
    'union (which has an object member) with the override type keeps parts of the union',
};

/** Upstream's one hand edit of the CLI's output (see KNOWN_DIFFERENCES in typegen-postgrest-js.test.ts). */
const withUpstreamJson = (types: string) => types.replace(/^export type Json =.*$/m, 'export type Json = unknown');

/** A copy of upstream's src and test with `types` as test/types.generated.ts. */
function prepare(types: string): string {
  const root = mkdtempSync(join(tmpdir(), 'postgrest-js-type-tests-'));
  for (const dir of ['src', 'test']) cpSync(join(UPSTREAM!, dir), join(root, dir), { recursive: true });
  writeFileSync(join(root, 'test/types.generated.ts'), types);
  linkPackages(root);
  return root;
}

/**
 * Compiles the files in one program and returns the errors in each. As upstream's tstyche config says
 * (checkSourceFiles: false), only the test files are checked, not postgrest-js's sources they import.
 */
function compile(root: string, files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, COMPILER_OPTIONS);
  const errors = new Map<string, string[]>();
  for (const file of files) {
    const sf = program.getSourceFile(file)!;
    const name = relative(root, file);
    const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    errors.set(
      name,
      diagnostics.map((d) => {
        const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
        return `${name}:${line} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
  return errors;
}

describe.skipIf(!upstreamPresent)("postgrest-js's type tests over our generated types", () => {
  let generated: string;
  const roots: string[] = [];
  beforeAll(async () => {
    generated = await generateFixtureTypes();
  });
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it('compiles every test-d file but the known failures, which fail', () => {
    const root = prepare(generated);
    roots.push(root);
    const files = typeTestFiles(join(root, 'test'));
    expect(files.length).toBeGreaterThan(0);
    const errors = compile(root, files);
    const failing = [...errors].filter(([, e]) => e.length > 0).map(([f]) => f);
    console.log(`typegen type tests: ${files.length - failing.length} of ${files.length} test-d files compile`);
    const unexpected = [...errors].filter(([f]) => !(f in KNOWN_FAILURES)).flatMap(([, e]) => e);
    expect(unexpected).toEqual([]);
    expect(failing.sort()).toEqual(Object.keys(KNOWN_FAILURES).sort());
  }, 300_000);

  it("compiles the known failures once upstream's hand-made Json type replaces the CLI's", () => {
    const root = prepare(withUpstreamJson(generated));
    roots.push(root);
    const files = Object.keys(KNOWN_FAILURES).map((f) => join(root, f));
    expect([...compile(root, files).values()].flat()).toEqual([]);
  }, 300_000);
});
