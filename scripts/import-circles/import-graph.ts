// Builds the graph of imports between the workspace's source files (packages/*/src, apps/*/src): relative imports
// and @auction-ops/* package imports, type-only ones included, since a type-only circle still ties two modules.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** File (relative to the root, with forward slashes) to the files it imports, in source order. */
export type ImportGraph = Map<string, string[]>;

const SOURCE = /\.(ts|tsx|mts)$/;

export function buildImportGraph(root: string): ImportGraph {
  const packages = workspacePackages(root);
  const files = packages.flatMap((p) => listSources(join(p.dir, 'src')));
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets: string[] = [];
    for (const specifier of importsOf(file)) {
      const target = resolveImport(file, specifier, packages);
      // Imports leaving the scanned sources (node_modules, test support) cannot close a circle among them.
      if (target && known.has(target) && !targets.includes(target)) targets.push(target);
    }
    graph.set(
      toKey(root, file),
      targets.map((t) => toKey(root, t)),
    );
  }
  return graph;
}

export interface WorkspacePackage {
  name: string;
  dir: string;
  exports: Record<string, unknown>;
}

export function workspacePackages(root: string): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir).sort()) {
      const dir = join(groupDir, entry);
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest) || !existsSync(join(dir, 'src'))) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; exports?: unknown };
      const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
      found.push({ name: pkg.name ?? entry, dir, exports: exports as Record<string, unknown> });
    }
  }
  return found;
}

export function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...listSources(path));
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function importsOf(file: string): string[] {
  // preProcessFile sees static imports, re-exports, `import type` and `import('…')` in type positions alike.
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

export function resolveImport(from: string, specifier: string, packages: WorkspacePackage[]): string | undefined {
  if (specifier.startsWith('.')) return resolveFile(resolve(dirname(from), specifier));
  const pkg = packages.find((p) => specifier === p.name || specifier.startsWith(`${p.name}/`));
  if (!pkg) return undefined;
  const subpath = `.${specifier.slice(pkg.name.length)}`;
  const target = pkg.exports[subpath];
  if (typeof target === 'string' && SOURCE.test(target)) return resolveFile(join(pkg.dir, target));
  // A package exporting its build (rest-engine) is read from src/index.ts in the workspace, as tsconfig `paths` do.
  return subpath === '.' ? resolveFile(join(pkg.dir, 'src/index')) : undefined;
}

/** NodeNext style `./x.js` names the `./x.ts` source; extensionless and directory imports are tried too. */
function resolveFile(path: string): string | undefined {
  const stem = path.replace(/\.(js|mjs|jsx)$/, '');
  const candidates = [path, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(path, 'index.ts')];
  return candidates.find((c) => SOURCE.test(c) && existsSync(c) && statSync(c).isFile());
}

export function toKey(root: string, file: string): string {
  return relative(root, file).split('\\').join('/');
}
