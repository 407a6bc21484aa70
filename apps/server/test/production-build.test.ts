// The production build (build/server-build.mjs), which `pnpm start` runs: built once per content, nothing loaded
// lazily pulled in at start, and the files found beside the sources still found. The server-process tests start it.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, firstWritable, unchangedBuild } from '../build/server-build.mjs';

const OWN_SOURCES = fileURLToPath(new URL('../../../', import.meta.url));

/** The relative imports (static ones only) of a built module, and theirs, as absolute paths. */
function staticGraph(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  for (const [, spec] of readFileSync(entry, 'utf8').matchAll(/^import\s[^;]*?from\s*"([^"]+)";/gms))
    if (spec.startsWith('.')) staticGraph(join(dirname(entry), spec), seen);
    else seen.add(spec);
  return seen;
}

describe('production build', () => {
  let out: string;
  let dir: string;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'server-build-'));
    dir = await buildServer(out);
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is written once per content: the same sources give the same directory, left as it was', async () => {
    const written = statSync(join(dir, 'main.mjs')).mtimeMs;
    expect(await buildServer(out)).toBe(dir);
    expect(statSync(join(dir, 'main.mjs')).mtimeMs).toBe(written);
    expect(readdirSync(out).filter((name) => name.startsWith('build-'))).toEqual([dir.slice(out.length + 1)]);
  });

  it('is not bundled again while its sources, its builder and the lockfile are unchanged', async () => {
    const record = join(out, 'newest-build.json');
    const written = statSync(record).mtimeMs;
    const inputs = Object.keys(JSON.parse(readFileSync(record, 'utf8')).inputs);
    expect(inputs).toContain(join(OWN_SOURCES, 'apps/server/src/main.ts'));
    expect(inputs).toContain(join(OWN_SOURCES, 'apps/cli/src/main.ts'));
    expect(inputs).toContain(join(OWN_SOURCES, 'packages/rest-engine/package.json'));
    expect(inputs).toContain(join(OWN_SOURCES, 'pnpm-lock.yaml'));
    expect(inputs).toContain(join(OWN_SOURCES, 'apps/server/build/server-build.mjs'));
    expect(unchangedBuild(out)).toBe(dir);
    expect(await buildServer(out)).toBe(dir);
    expect(statSync(record).mtimeMs).toBe(written);
  });

  it('is bundled again when a source it was made from changed, or a package it imports is gone', async () => {
    const record = join(out, 'newest-build.json');
    const made = JSON.parse(readFileSync(record, 'utf8'));
    const source = join(OWN_SOURCES, 'apps/server/src/main.ts');
    // As if main.ts had other bytes when the build was made: its bytes now differ from the recorded ones.
    writeFileSync(record, JSON.stringify({ ...made, inputs: { ...made.inputs, [source]: 'other bytes' } }));
    expect(unchangedBuild(out)).toBeUndefined();
    expect(await buildServer(out)).toBe(dir);
    expect(JSON.parse(readFileSync(record, 'utf8')).inputs[source]).toBe(made.inputs[source]);

    writeFileSync(record, JSON.stringify({ ...made, externals: [...made.externals, join(out, 'gone/index.js')] }));
    expect(unchangedBuild(out)).toBeUndefined();
    writeFileSync(record, '{"dir":');
    expect(unchangedBuild(out)).toBeUndefined();
    expect(await buildServer(out)).toBe(dir);
    expect(unchangedBuild(out)).toBe(dir);
  });

  it('is built elsewhere when its first place cannot be written to (a read-only checkout)', () => {
    const file = join(out, 'a-file');
    writeFileSync(file, '');
    const fallback = join(out, 'fallback');
    expect(firstWritable([join(file, 'dist'), fallback])).toBe(fallback);
    expect(statSync(fallback).isDirectory()).toBe(true);
    expect(() => firstWritable([join(file, 'dist')])).toThrow(/none of .* can be written to/);
  });

  it.runIf(process.getuid?.() === 0)(
    'is never built where another user could put a build of theirs (the shared temporary directory)',
    () => {
      const theirs = join(out, 'theirs');
      mkdirSync(theirs);
      chownSync(theirs, 65534, 65534);
      const open = join(out, 'open');
      mkdirSync(open);
      chmodSync(open, 0o777);
      const fallback = join(out, 'ours');
      expect(firstWritable([theirs, open, fallback])).toBe(open);
      // The directory of our own that others could write to is closed to them first.
      expect(statSync(open).mode & 0o777).toBe(0o755);
      expect(firstWritable([theirs, fallback])).toBe(fallback);
    },
  );

  it('does not follow a record that names a directory other than a build of its own', async () => {
    const record = join(out, 'newest-build.json');
    const made = JSON.parse(readFileSync(record, 'utf8'));
    const planted = join(mkdtempSync(join(tmpdir(), 'planted-build-')), 'build');
    mkdirSync(planted);
    writeFileSync(join(planted, 'main.mjs'), 'console.log("not the server")');
    writeFileSync(record, JSON.stringify({ ...made, dir: relative(out, planted) }));
    expect(unchangedBuild(out)).toBeUndefined();
    expect(await buildServer(out)).toBe(dir);
    rmSync(dirname(planted), { recursive: true, force: true });
  });

  it('loads tracing only when configured: OpenTelemetry is not in what main.mjs imports at start', () => {
    const graph = [...staticGraph(join(dir, 'main.mjs'))];
    expect(graph.some((spec) => spec.includes('/node_modules/.pnpm/hono@'))).toBe(true);
    expect(graph.filter((spec) => spec.includes('@opentelemetry'))).toEqual([]);
    const chunks = readdirSync(join(dir, 'chunks'));
    expect(chunks.some((name) => /^tracing-.*\.mjs$/.test(name))).toBe(true);
  });

  it('loads the heavy optional libraries at their first use, not at start (about 33 MB of each process)', () => {
    const graph = [...staticGraph(join(dir, 'main.mjs'))];
    const optional = /\/node_modules\/(sharp|libpg-query|@aws-sdk\/client-s3|@simplewebauthn\/server|nodemailer)\//;
    expect(graph.filter((spec) => optional.test(spec))).toEqual([]);
    const code = readdirSync(join(dir, 'chunks'))
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => readFileSync(join(dir, 'chunks', name), 'utf8'))
      .join('\n');
    expect(code).toMatch(/import\("file:[^"]*\/node_modules\/sharp\//);
    expect(code).toMatch(/import\("file:[^"]*\/node_modules\/libpg-query\//);
    expect(code).toMatch(/import\("file:[^"]*\/node_modules\/@simplewebauthn\/server\//);
  });

  it("keeps each source's own import.meta.url, so files beside the sources are found", async () => {
    const code = readdirSync(join(dir, 'chunks'))
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => readFileSync(join(dir, 'chunks', name), 'utf8'))
      .join('\n');
    expect(code).not.toContain('import.meta.url');
    expect(code).toContain(JSON.stringify(`file://${OWN_SOURCES}packages/auth-core/src/migrations.ts`));
    // Imported, the build names every migration set's directory under the sources, where the SQL files are.
    const script = `const m = await import(${JSON.stringify(join(dir, 'index.mjs'))});
      console.log(JSON.stringify(m.migrationSets.map((set) => set.dir)))`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    child.stdout.on('data', (d) => {
      printed += d;
    });
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    const dirs: string[] = JSON.parse(printed);
    expect(dirs).toHaveLength(10);
    for (const migrations of dirs) {
      expect(migrations.startsWith(OWN_SOURCES)).toBe(true);
      expect(readdirSync(migrations).some((name) => name.endsWith('.sql'))).toBe(true);
    }
  });
});
