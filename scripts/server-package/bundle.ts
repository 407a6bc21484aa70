// The package's JavaScript: the CLI (which runs the server as `auction-ops start`) bundled by esbuild into dist/,
// with the workspace packages inside and the packages from npm left to Node, by name, as the installed package's
// dependencies. Records which third-party packages the bundle needs, at the versions this checkout resolves.
import { readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { BARE_IMPORT, resolveNpmImport } from '../../apps/server/build/server-build.mjs';
import { checkFilesBeside, MIRROR } from './assets.js';

export const ROOT = join(import.meta.dirname, '../..');
const CLI_MAIN = join(ROOT, 'apps/cli/src/main.ts');
const SERVER_MAIN = join(ROOT, 'apps/server/src/main.ts');
/** Inside the bundle though from npm: the checkout patches it (patches/), and an install from npm would not. */
const BUNDLED_FROM_NPM = new Set(['postgres']);

export interface Bundled {
  /** The npm packages the bundle imports, by name, with the version this checkout resolves. */
  needed: Map<string, string>;
  /** Those a process loads at start, running a command or the server: imported statically from their mains. */
  atStart: Set<string>;
}
/** What a process loads first: the command line, then the server's main or the other commands (main.ts). */
const STARTS = ['apps/cli/src/main.ts', 'apps/server/src/main.ts', 'apps/cli/src/run-command.ts'];

/** The name of the npm package a bare import names (`@aws-sdk/client-s3/x` -> `@aws-sdk/client-s3`). */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The version of package `name` that `file` (a file inside it) belongs to: the nearest package.json so named. */
function installedVersion(name: string, file: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.name === name) return manifest.version;
    } catch {
      // no package.json here: the directory above
    }
  }
  throw new Error(`no package.json of ${name} above ${file}`);
}

/** Bundles into `outDir` and returns the npm packages the bundle imports. */
export async function bundleCli(outDir: string): Promise<Bundled> {
  const needed = new Map<string, string>();
  const need = (name: string, file: string) => {
    const version = installedVersion(name, file);
    const seen = needed.get(name);
    if (seen && seen !== version)
      throw new Error(`${name} resolves to ${seen} and ${version} in the workspace: one version ships`);
    needed.set(name, version);
  };
  const { metafile } = await build({
    absWorkingDir: ROOT,
    metafile: true,
    entryPoints: { cli: CLI_MAIN },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: outDir,
    // Chunks beside the entry: every output file then finds the mirrored tree at the same relative path.
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    // Stack traces name the sources' files and lines; the sources themselves are not shipped.
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [serverMain, npmPackages(need), mirroredFileUrls(need)],
  });
  return { needed, atStart: loadedAtStart(metafile) };
}

/** The npm packages in the static import graph of the STARTS' output files. */
function loadedAtStart(metafile: Metafile): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const { path, kind, external } of metafile.outputs[output]!.imports) {
      if (kind !== 'import-statement') continue;
      if (!external) visit(path);
      else if (!isBuiltin(path)) packages.add(packageName(path));
    }
  };
  for (const [output, { entryPoint }] of Object.entries(metafile.outputs))
    if (entryPoint && STARTS.includes(entryPoint)) visit(output);
  if (seen.size === 0) throw new Error(`none of ${STARTS.join(', ')} is an output of the bundle`);
  return packages;
}

/** `auction-ops start` in a checkout builds the server first (apps/server/bin/start.mjs); here it is built. */
const serverMain: Plugin = {
  name: 'server-main',
  setup(b) {
    b.onResolve({ filter: /^@auction-ops\/server\/start$/ }, () => ({ path: SERVER_MAIN }));
  },
};

/** Bare imports of npm packages stay imports by name, resolved by Node in the installed package's node_modules. */
function npmPackages(need: (name: string, file: string) => void): Plugin {
  return {
    name: 'npm-packages',
    setup(b) {
      b.onResolve({ filter: BARE_IMPORT }, async (args) => {
        const found = await resolveNpmImport(b, args);
        if (!found) return;
        if (found.errors.length > 0) return { errors: found.errors };
        const name = packageName(args.path);
        if (BUNDLED_FROM_NPM.has(name)) return { path: found.path };
        need(name, found.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Each workspace source sees as `import.meta.url` its own place in the package's mirrored tree (assets.ts), found
 * from the bundle file's own URL: the files it reads beside itself are copied there. Packages a source loads with
 * `createRequire` are needed too, though esbuild sees no import of them.
 */
function mirroredFileUrls(need: (name: string, file: string) => void): Plugin {
  return {
    name: 'mirrored-file-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes('/node_modules/')) return;
        const source = readFileSync(args.path, 'utf8');
        const own = relative(ROOT, args.path);
        if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
        checkFilesBeside(own);
        const url = `new URL(${JSON.stringify(`../${MIRROR}/${own}`)}, import.meta.url).href`;
        for (const [, name] of source.matchAll(/\brequire(?:\.resolve)?\(\s*'([^'.][^']*)'/g))
          if (!isBuiltin(name!)) need(packageName(name!), createRequire(args.path).resolve(name!));
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}
