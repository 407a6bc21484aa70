// Operator expressions: Haskell's fixities of the operators the suite uses, and the resolution of a flat run of
// operands and operators into a tree by them.
import type { Expr } from './hs-ast.js';

// Haskell's fixities of the operators the suite uses (base, hspec, hspec-wai); others are infixl 9, as in Haskell.
const FIXITY: Record<string, [number, 'l' | 'r' | 'n']> = {
  $: [0, 'r'],
  '$!': [0, 'r'],
  '>>': [1, 'l'],
  '>>=': [1, 'l'],
  '=<<': [1, 'r'],
  shouldRespondWith: [1, 'n'],
  shouldBe: [1, 'n'],
  shouldSatisfy: [1, 'n'],
  shouldNotBe: [1, 'n'],
  shouldContain: [1, 'n'],
  '||': [2, 'r'],
  '&&': [3, 'r'],
  '==': [4, 'n'],
  '/=': [4, 'n'],
  '<': [4, 'n'],
  '<=': [4, 'n'],
  '>': [4, 'n'],
  '>=': [4, 'n'],
  elem: [4, 'n'],
  notElem: [4, 'n'],
  '<$>': [4, 'l'],
  '<$': [4, 'l'],
  '<*>': [4, 'l'],
  ':': [5, 'r'],
  '++': [5, 'r'],
  '<>': [6, 'r'],
  '+': [6, 'l'],
  '-': [6, 'l'],
  '*': [7, 'l'],
  '/': [7, 'l'],
  '^?': [8, 'l'],
  '.': [9, 'r'],
};
const fixity = (op: string): [number, 'l' | 'r' | 'n'] => FIXITY[op] ?? [9, 'l'];

/** Operator precedence by Haskell's fixities (a shunting-yard over the flat operand/operator list). */
export function resolve(operands: Expr[], ops: string[]): Expr {
  const out: Expr[] = [operands[0]!];
  const stack: string[] = [];
  const reduce = () => {
    const op = stack.pop()!;
    const r = out.pop()!;
    const l = out.pop()!;
    out.push({ k: 'op', op, l, r });
  };
  ops.forEach((op, i) => {
    const [p, assoc] = fixity(op);
    while (stack.length) {
      const [q] = fixity(stack[stack.length - 1]!);
      if (q > p || (q === p && assoc !== 'r')) reduce();
      else break;
    }
    stack.push(op);
    out.push(operands[i + 1]!);
  });
  while (stack.length) reduce();
  return out[0]!;
}
