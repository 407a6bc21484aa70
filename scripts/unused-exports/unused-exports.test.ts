// The unused-export check on tiny temporary workspaces: an export nothing else imports is reported (with whether
// its own file still uses it); imports of every form, package entry points and the allow-list keep a name.
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspaces } from '../support/temp-workspace.js';
import { findUnusedExports } from './find-unused-exports.js';

const { workspace, cleanUp } = tempWorkspaces('unused-exports-');

const find = (root: string, allowed: string[] = [], publicEntryPoints: string[] = []) =>
  findUnusedExports(root, { publicEntryPoints, allowed });

afterEach(cleanUp);

describe('unused exports', () => {
  it('reports an export no other file imports, and whether its own file uses it', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "export { used } from './a.js';\n",
      'packages/alpha/src/a.ts':
        'export const used = 1;\nexport const helper = 2;\nexport function dead() {}\nexport const twice = helper * 2;\n',
      'packages/beta/src/index.ts': "import { twice } from '../../alpha/src/a.js';\nexport const b = twice;\n",
    });
    expect(find(root)).toEqual([
      { file: 'packages/alpha/src/a.ts', name: 'dead', usedInFile: false },
      { file: 'packages/alpha/src/a.ts', name: 'helper', usedInFile: true },
    ]);
  });

  it('counts named, namespace, type-position, re-export and test imports; entry points are public', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "export * from './star.js';\nexport const surface = 1;\n",
      'packages/alpha/src/star.ts': 'export const viaStar = 1;\n',
      'packages/alpha/src/a.ts': 'export const viaNamespace = 1;\nexport const notRead = 2;\nexport type T = string;\n',
      'packages/alpha/src/b.ts': 'export interface Shape { x: number }\nexport const tested = 3;\n',
      'packages/alpha/src/c.ts':
        "import * as a from './a.js';\nexport const c: import('./b.js').Shape = { x: a.viaNamespace };\n" +
        "export type U = import('./a.js').T;\n",
      'packages/alpha/test/b.test.ts': "import { tested } from '../src/b.js';\nconsole.log(tested);\n",
      'packages/beta/src/index.ts': "export { c, type U } from '../../alpha/src/c.js';\n",
    });
    expect(find(root)).toEqual([{ file: 'packages/alpha/src/a.ts', name: 'notRead', usedInFile: false }]);
  });

  it('keeps what the allow-list names and every export of a listed public entry point', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': 'export {};\n',
      'packages/alpha/src/a.ts': 'export const kept = 1;\nexport const dropped = 2;\n',
      'packages/alpha/src/cli.ts': 'export function main() {}\n',
    });
    expect(find(root, ['packages/alpha/src/a.ts#kept'], ['packages/alpha/src/cli.ts'])).toEqual([
      { file: 'packages/alpha/src/a.ts', name: 'dropped', usedInFile: false },
    ]);
  });
});
