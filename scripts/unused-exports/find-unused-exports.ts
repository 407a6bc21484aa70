// Finds exports of the workspace's source files (packages/*/src, apps/*/src) that no other file imports: dead code,
// or names that should not be exported. Every TypeScript and JavaScript file of the workspace counts as an importer
// (sources, tests, scripts, bin and build scripts), through the same resolver as the import-circle check.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import {
  listSources,
  resolveImport,
  toKey,
  type WorkspacePackage,
  workspacePackages,
} from '../import-circles/import-graph.js';

export interface UnusedExport {
  /** The file, relative to the root. */
  file: string;
  name: string;
  /** Whether the name is still used inside its own file: then un-export it, else delete it. */
  usedInFile: boolean;
}

export interface UnusedExportOptions {
  /**
   * Files (relative to the root) whose every export is public API, used by the world outside the workspace, besides
   * the package entry points found on their own (package.json `exports`, which rest-engine points at its build).
   */
  publicEntryPoints: readonly string[];
  /** `file#name` of single exports kept though nothing imports them. */
  allowed: readonly string[];
}

const SCRIPT = /\.(ts|tsx|mts|js|mjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.data', 'vendor', '.git', 'build-output']);
/** Every export of a file: `export *`, a namespace import passed around, a dynamic import. */
const ALL = '*';

export function findUnusedExports(root: string, options: UnusedExportOptions): UnusedExport[] {
  const packages = workspacePackages(root);
  const sources = packages
    .flatMap((p) => listSources(join(p.dir, 'src')))
    .filter((f) => !/\.test\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  const exportsOf = new Map<string, Set<string>>();
  const parsed = new Map<string, ts.SourceFile>();
  for (const file of sources) {
    const source = parse(file);
    parsed.set(file, source);
    exportsOf.set(file, exportedNames(source));
  }

  const used = new Map<string, Set<string>>();
  const use = (target: string | undefined, name: string) => {
    if (!target || !exportsOf.has(target)) return;
    const names = used.get(target) ?? new Set<string>();
    used.set(target, names);
    names.add(name);
  };
  for (const file of workspaceFiles(root)) {
    const source = parsed.get(file) ?? parse(file);
    for (const { specifier, names } of importsOf(source)) {
      const target = resolveImport(file, specifier, packages);
      if (target === file) continue;
      for (const name of names) use(target, name);
    }
  }

  // A package's entry points (its package.json `exports`) are its public surface (STYLE.md 9), like the files named.
  const isPublic = new Set([...options.publicEntryPoints, ...packages.flatMap((p) => entryPoints(root, p))]);
  const allowed = new Set(options.allowed);
  const unused: UnusedExport[] = [];
  for (const [file, names] of exportsOf) {
    const key = toKey(root, file);
    if (isPublic.has(key)) continue;
    const usedNames = used.get(file) ?? new Set();
    if (usedNames.has(ALL)) continue;
    for (const name of names) {
      if (usedNames.has(name) || allowed.has(`${key}#${name}`)) continue;
      unused.push({ file: key, name, usedInFile: referencesInFile(parsed.get(file)!, name) > 1 });
    }
  }
  return unused.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

function entryPoints(root: string, pkg: WorkspacePackage): string[] {
  return Object.values(pkg.exports)
    .filter((target): target is string => typeof target === 'string')
    .map((target) => toKey(root, join(pkg.dir, target)));
}

function parse(file: string): ts.SourceFile {
  const kind = /\.m?js$/.test(file) ? ts.ScriptKind.JS : file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

/** Every script file of the workspace outside node_modules and build output: the possible importers. */
function workspaceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (SKIP_DIRS.has(entry) || entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (SCRIPT.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const top of ['packages', 'apps', 'scripts']) if (existsSync(join(root, top))) walk(join(root, top));
  for (const entry of readdirSync(root)) if (SCRIPT.test(entry)) out.push(join(root, entry));
  return out;
}

const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

function exportedNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      // `export * from` adds names this scan cannot list; what it passes on is counted as used at its source.
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.add(element.name.text);
      } else if (statement.exportClause && ts.isNamespaceExport(statement.exportClause)) {
        names.add(statement.exportClause.name.text);
      }
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      if (!statement.isExportEquals) names.add('default');
      continue;
    }
    if (!hasExport(statement)) continue;
    if (hasDefault(statement)) names.add('default');
    else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name, names);
    } else {
      const name = (statement as ts.DeclarationStatement).name;
      if (name && ts.isIdentifier(name)) names.add(name.text);
    }
  }
  return names;
}

function bindingNames(name: ts.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) into.add(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindingNames(element.name, into);
}

interface ImportUse {
  specifier: string;
  names: string[];
}

/** Each module a file names and which of its exports it uses (ALL when that cannot be told). */
function importsOf(source: ts.SourceFile): ImportUse[] {
  const uses: ImportUse[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const names: string[] = [];
      const clause = node.importClause;
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
      } else if (bindings && ts.isNamespaceImport(bindings)) {
        names.push(...namespaceMembers(source, bindings.name.text));
      }
      uses.push({ specifier: node.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : [ALL];
      uses.push({ specifier: node.moduleSpecifier.text, names });
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        const qualifier = node.qualifier;
        uses.push({ specifier: argument.literal.text, names: [qualifier ? firstName(qualifier) : ALL] });
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      uses.push({ specifier: node.arguments[0].text, names: [ALL] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** `A` of `import('x').A.B`: the export the type names. */
function firstName(name: ts.EntityName): string {
  while (ts.isQualifiedName(name)) name = name.left;
  return name.text;
}

/** The members read through `import * as ns`: `ns.x` and `ns.X` in types; ALL when ns itself is passed on. */
function namespaceMembers(source: ts.SourceFile, namespace: string): string[] {
  const members = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === namespace) {
      const parent = node.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) members.add(parent.name.text);
      else if (ts.isQualifiedName(parent) && parent.left === node) members.add(parent.right.text);
      else if (!ts.isNamespaceImport(parent)) members.add(ALL);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...members];
}

function referencesInFile(source: ts.SourceFile, name: string): number {
  let count = 0;
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === name) count++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}
