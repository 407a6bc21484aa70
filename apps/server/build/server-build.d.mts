/** Where builds go, in order of preference: apps/server/dist, then a directory in the system's temp dir. */
export const OUT_DIRS: readonly string[];
/** The first of `dirs` that exists or can be made, and can be written to. */
export function firstWritable(dirs: readonly string[]): string;
/** Bundles the server into `<outDir>/build-<content hash>/` (main.mjs, index.mjs, cli.mjs) and returns that directory. */
export function buildServer(outDir?: string): Promise<string>;
/** The newest build in `outDir` when nothing it was made from changed since; undefined when it must be bundled again. */
export function unchangedBuild(outDir: string): string | undefined;
/** The environment variable naming the build a cluster's workers run. */
export const BUILD_VARIABLE: string;
/** An import by package name (not a relative path). */
export const BARE_IMPORT: RegExp;
/** For the import of an npm package by name: what esbuild resolves it to; undefined for any other import. */
export function resolveNpmImport(
  b: import('esbuild').PluginBuild,
  args: import('esbuild').OnResolveArgs,
): Promise<import('esbuild').ResolveResult | undefined>;
