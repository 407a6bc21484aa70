// Splits a generated types file into comparable entries: one per Database schema section member
// (`public.Tables.users`), plus the Json type, the helper types and Constants. Each entry is printed in a canonical
// form (type literals as `{a:T;b?:U}`, quotes and whitespace normalized) so that formatting does not count.
import ts from 'typescript';

function canon(node: ts.Node, sf: ts.SourceFile): string {
  if (ts.isTypeLiteralNode(node)) {
    return `{${node.members
      .map((m) => {
        if (ts.isPropertySignature(m) && m.type) {
          return `${propName(m.name, sf)}${m.questionToken ? '?' : ''}:${canon(m.type, sf)}`;
        }
        return text(m, sf);
      })
      .join(';')}}`;
  }
  if (ts.isUnionTypeNode(node)) return node.types.map((t) => canon(t, sf)).join('|');
  if (ts.isIntersectionTypeNode(node)) return node.types.map((t) => canon(t, sf)).join('&');
  if (ts.isTupleTypeNode(node)) return `[${node.elements.map((e) => canon(e, sf)).join(',')}]`;
  if (ts.isArrayTypeNode(node)) return `${canon(node.elementType, sf)}[]`;
  if (ts.isParenthesizedTypeNode(node)) return `(${canon(node.type, sf)})`;
  return text(node, sf);
}

const propName = (n: ts.PropertyName, sf: ts.SourceFile) =>
  ts.isStringLiteral(n) || ts.isIdentifier(n) ? JSON.stringify(n.text) : n.getText(sf);

const text = (n: ts.Node, sf: ts.SourceFile) =>
  n
    .getText(sf)
    .replace(/'/g, '"')
    .replace(/\s+/g, '')
    .replace(/,([>\]}])/g, '$1');

function members(node: ts.TypeNode | undefined): readonly ts.TypeElement[] {
  return node && ts.isTypeLiteralNode(node) ? node.members : [];
}

export function typeEntries(source: string): Map<string, string> {
  const sf = ts.createSourceFile('types.ts', source, ts.ScriptTarget.Latest, true);
  const out = new Map<string, string>();
  for (const st of sf.statements) {
    if (ts.isTypeAliasDeclaration(st) && st.name.text === 'Database') {
      for (const schema of members(st.type)) {
        if (!ts.isPropertySignature(schema) || !schema.type) continue;
        const s = (schema.name as ts.Identifier).text;
        if (!ts.isTypeLiteralNode(schema.type)) {
          out.set(s, canon(schema.type, sf));
          continue;
        }
        for (const section of members(schema.type)) {
          if (!ts.isPropertySignature(section) || !section.type) continue;
          const sec = (section.name as ts.Identifier).text;
          for (const entry of members(section.type)) {
            if (ts.isPropertySignature(entry) && entry.type) {
              out.set(`${s}.${sec}.${(entry.name as ts.Identifier).text}`, canon(entry.type, sf));
            }
          }
        }
      }
    } else if (ts.isTypeAliasDeclaration(st)) {
      out.set(st.name.text, text(st, sf));
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) out.set((d.name as ts.Identifier).text, text(d, sf));
    }
  }
  return out;
}
