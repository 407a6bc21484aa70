// The package's API reference (API.md), generated from its public types: every export of src/index.ts with its
// signature or shape and its doc comment, so that the reference can never drift from what the package exports.
// `pnpm api-reference` rewrites the file; test/api-reference.test.ts fails when it is stale. Not part of the package.
import ts from 'typescript';

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

/** A member line of an interface or object type: its doc as a comment, then `name?: type;`. */
function memberLines(type: ts.Type, checker: ts.TypeChecker, at: ts.Node): string[] {
  const lines: string[] = [];
  for (const prop of checker.getPropertiesOfType(type)) {
    const doc = docOf(prop, checker);
    if (doc) for (const line of doc.split('\n')) lines.push(`  // ${line}`.trimEnd());
    const optional = prop.flags & ts.SymbolFlags.Optional ? '?' : '';
    const printed = checker.typeToString(checker.getTypeOfSymbolAtLocation(prop, at), at, FORMAT);
    // An optional member's type carries `| undefined`, which the `?` already says.
    const propType = optional ? printed.replace(/ \| undefined$/, '') : printed;
    lines.push(`  ${prop.name}${optional}: ${propType};`);
  }
  return lines;
}

/** The code block of one export: a function's signatures, a class's public surface, a type's shape. */
function shapeOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const decl = symbol.declarations?.[0];
  if (!decl) return `${symbol.name}`;
  const type = checker.getTypeAtLocation(decl);
  if (ts.isFunctionDeclaration(decl)) {
    return type
      .getCallSignatures()
      .map((s) => `function ${symbol.name}${checker.signatureToString(s, decl, FORMAT)}`)
      .join('\n');
  }
  if (ts.isClassDeclaration(decl)) {
    const ctor = checker.getTypeOfSymbolAtLocation(symbol, decl).getConstructSignatures()[0];
    const head = ctor ? [`  constructor${checker.signatureToString(ctor, decl, FORMAT)};`] : [];
    return [`class ${symbol.name} {`, ...head, ...memberLines(type, checker, decl), '}'].join('\n');
  }
  if (ts.isInterfaceDeclaration(decl)) {
    return [`interface ${symbol.name} {`, ...memberLines(type, checker, decl), '}'].join('\n');
  }
  if (ts.isTypeAliasDeclaration(decl)) {
    return `type ${symbol.name} = ${decl.type.getText().replace(/^\|\s*/, '')};`;
  }
  return `const ${symbol.name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, decl), decl, FORMAT)};`;
}

/** API.md for the package whose public entry is `entry` (its src/index.ts). */
export function generateApiReference(entry: string): string {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} exports nothing`);
  const exports = checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s))
    .sort((a, b) => a.name.localeCompare(b.name));
  const out = [
    '# @auction-ops/rest-engine API reference',
    '',
    "Generated from the package's types by `pnpm api-reference` (`scripts/api-reference.ts`); the README explains how",
    'the parts fit together.',
    '',
  ];
  for (const symbol of exports) {
    out.push(`## ${symbol.name}`, '', '```ts', shapeOf(symbol, checker), '```', '');
    const doc = docOf(symbol, checker);
    if (doc) out.push(doc, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
