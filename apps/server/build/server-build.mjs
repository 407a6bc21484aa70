// The server's production build: its TypeScript (apps/server and the workspace packages) bundled by esbuild into
// plain JavaScript, so that `pnpm start` runs without a TypeScript loader. Under tsx a process held about 40 MB more
// (its compiler thread and the transformed sources) and every closure paid for a `__name` wrapper.
// Plain JavaScript itself, since it runs before anything can load TypeScript.
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, stop } from 'esbuild';

const SERVER_SRC = fileURLToPath(new URL('../src/', import.meta.url));
/** The `auction-ops` command line (apps/cli), built with the server: its `start` is the server's main. */
const CLI_MAIN = fileURLToPath(new URL('../../cli/src/main.ts', import.meta.url));
/**
 * Where builds go: apps/server/dist, or, from a checkout the server may not write to (a read-only image), a
 * directory of this checkout's own in the system's temporary directory.
 */
export const OUT_DIRS = [
  fileURLToPath(new URL('../dist/', import.meta.url)),
  join(tmpdir(), `auction-ops-server-${createHash('sha256').update(SERVER_SRC).digest('hex').slice(0, 12)}`),
];
/** Where a cluster's primary tells its workers which build to run (they must not build one of their own). */
export const BUILD_VARIABLE = 'AUCTION_OPS_SERVER_BUILD';
/** Builds kept beside the newest: a server started from one of them may still restart a cluster worker from it. */
const KEPT_BUILDS = 4;
/** What the newest build was made from, in its output directory (see unchangedBuild). */
const RECORD = 'newest-build.json';
/** This file: a change to how the build is made is a change to the build. */
const BUILDER = fileURLToPath(import.meta.url);
/** The checkout: the build's working directory, so the same sources bundle the same from any current directory. */
const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Bundles src/main.ts (what `pnpm start` runs), src/index.ts (startServer, for benchmarks) and the CLI's main (what
 * `auction-ops` runs in a checkout) into `<outDir>/build-<content hash>/`, and returns that directory. The same sources
 * give the same directory, written once; a build is written under a temporary name and renamed into place, so a
 * reader never sees half of one. Sources unchanged since the newest build are not bundled again (unchangedBuild).
 *
 * What the bundle must keep from running the sources in place:
 * - `import.meta.url` is each source file's own URL, so the files found beside the sources (migrations, templates,
 *   the console's client entry, the parse worker's entry) are found from the bundle too;
 * - packages from node_modules stay outside the bundle, imported by absolute URL as each workspace package resolves
 *   them (pnpm gives every package its own dependencies), which also makes a build belong to this checkout;
 * - a dynamic import (tracing, loaded only when configured) stays a chunk of its own, loaded only then.
 */
export async function buildServer(outDir = firstWritable(OUT_DIRS)) {
  const unchanged = unchangedBuild(outDir);
  if (unchanged) return unchanged;
  const result = await build({
    absWorkingDir: CHECKOUT,
    metafile: true,
    entryPoints: { main: join(SERVER_SRC, 'main.ts'), index: join(SERVER_SRC, 'index.ts'), cli: CLI_MAIN },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: join(outDir, 'pending'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    // Packages resolve as Node resolves them, since Node loads them (externalPackages): without any condition set,
    // esbuild adds the bundlers' `module`, whose files Node may not load (@opentelemetry/api 1.9's ESM build imports
    // its modules without file extensions, and a server with tracing on failed to start).
    conditions: [],
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
    plugins: [serverStart, externalPackages, ownFileUrls],
  }).finally(() => {
    // esbuild's service process is not needed after this one build.
    void stop();
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const dir = join(outDir, `build-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    const pending = join(outDir, `pending-${process.pid}-${Date.now()}`);
    for (const file of result.outputFiles) {
      const path = join(pending, relative(join(outDir, 'pending'), file.path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.contents);
    }
    try {
      renameSync(pending, dir);
    } catch (error) {
      rmSync(pending, { recursive: true, force: true });
      if (!existsSync(dir)) throw error; // else another start wrote the same build first
    }
  }
  recordBuild(outDir, dir, result.metafile);
  pruneOldBuilds(outDir, dir);
  return dir;
}

/**
 * The newest build in `outDir` if nothing it was made from has changed since, else undefined: a start (and every
 * command of the CLI, which runs from the same build) then costs reading its sources, not bundling them. What it was
 * made from: every bundled source and the package.json beside it (which resolves imports between the workspace's
 * packages), this builder, the lockfile (the versions of the packages left to Node), and the files of those packages
 * it imports, which must still be there.
 */
export function unchangedBuild(outDir) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(outDir, RECORD), 'utf8'));
  } catch {
    return undefined; // no build recorded yet, or a record cut off by a crash: build
  }
  // A build of this directory's own, by the name buildServer gives it: the record cannot point elsewhere.
  if (typeof record.dir !== 'string' || !/^build-[0-9a-f]{16}$/.test(record.dir)) return undefined;
  const dir = join(outDir, record.dir);
  if (!existsSync(join(dir, 'main.mjs'))) return undefined;
  for (const [file, digest] of Object.entries(record.inputs)) if (digestOf(file) !== digest) return undefined;
  for (const file of record.externals) if (!existsSync(file)) return undefined;
  return dir;
}

function recordBuild(outDir, dir, metafile) {
  const files = new Set([BUILDER, join(CHECKOUT, 'pnpm-lock.yaml')]);
  for (const input of Object.keys(metafile.inputs)) {
    const file = resolve(CHECKOUT, input);
    files.add(file);
    const manifest = packageJsonOf(file);
    if (manifest) files.add(manifest);
  }
  const externals = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const { path, external } of output.imports)
      if (external && path.startsWith('file:')) externals.add(fileURLToPath(path));
  const record = {
    dir: relative(outDir, dir),
    inputs: Object.fromEntries([...files].map((file) => [file, digestOf(file)])),
    externals: [...externals],
  };
  // Written whole under another name and renamed: a concurrent start reads the old record or the new one.
  const pending = join(outDir, `${RECORD}.${process.pid}`);
  writeFileSync(pending, JSON.stringify(record));
  renameSync(pending, join(outDir, RECORD));
}

/** The SHA-256 of a file's bytes, or null when it is not there. */
function digestOf(file) {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
}

/** The package.json of the workspace package a source belongs to. */
function packageJsonOf(file) {
  for (let dir = dirname(file); dir.startsWith(CHECKOUT) && dir !== CHECKOUT; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return manifest;
  }
  return undefined;
}

/**
 * The first of `dirs` that exists or can be made, can be written to, and is this user's alone: what a build
 * directory holds is run, so one another user made or may write to (the shared temporary directory) is passed over.
 */
export function firstWritable(dirs) {
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      accessSync(dir, constants.W_OK);
      const { uid, mode } = statSync(dir);
      if (process.getuid && uid !== process.getuid()) continue;
      // Ours, but writable by the group or others (a umask of 002): only we write builds there.
      if ((mode & 0o022) !== 0) chmodSync(dir, mode & 0o755);
      return dir;
    } catch {
      // read-only, not a directory: the next one
    }
  }
  throw new Error(`the server cannot be built: none of ${dirs.join(', ')} can be written to`);
}

/** An import by package name (not a relative path). */
export const BARE_IMPORT = /^[^./]/;

/**
 * For the import of an npm package (by name, neither a Node builtin nor a workspace package): what esbuild resolves
 * it to from its importer; undefined for any other import. Shared with the npm package's bundle
 * (scripts/server-package/bundle.ts), which decides differently what to do with it.
 */
export async function resolveNpmImport(b, args) {
  if (args.pluginData?.resolving || isBuiltin(args.path) || args.path.startsWith('@auction-ops/')) return undefined;
  return b.resolve(args.path, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    pluginData: { resolving: true },
  });
}

/**
 * The CLI's `start` runs the server's main in the CLI's own process (signals reach the server there), from this same
 * build: the `main` entry's code, not bin/start.mjs (which would build again).
 */
const serverStart = {
  name: 'server-start',
  setup(b) {
    b.onResolve({ filter: /^@auction-ops\/server\/start$/ }, () => ({ path: join(SERVER_SRC, 'main.ts') }));
  },
};

/** Bare imports outside the workspace: left to Node, by the absolute URL esbuild resolves from the importer. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: BARE_IMPORT }, async (args) => {
      const found = await resolveNpmImport(b, args);
      if (!found) return;
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** Each TypeScript source sees its own file URL as `import.meta.url`. */
const ownFileUrls = {
  name: 'own-file-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return;
      const source = readFileSync(args.path, 'utf8');
      const contents = source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: 'ts' };
    });
  },
};

function pruneOldBuilds(outDir, current) {
  const builds = readdirSync(outDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith('build-') && join(outDir, e.name) !== current)
    .map((e) => ({ path: join(outDir, e.name), mtime: statSync(join(outDir, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEPT_BUILDS)) rmSync(old.path, { recursive: true, force: true });
}
