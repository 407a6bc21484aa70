// The import-circle check on tiny temporary workspaces: a circle (type-only and through a package import too) is
// reported as a chain of files with exit 1; a tree without one passes.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspaces } from '../support/temp-workspace.js';
import { findCircles } from './find-circles.js';
import { buildImportGraph } from './import-graph.js';

const { workspace, cleanUp } = tempWorkspaces('import-circles-');

afterEach(cleanUp);

describe('import circles', () => {
  it('reports a type-only circle between two files as a chain', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "export { a } from './a.js';\n",
      'packages/alpha/src/a.ts': "import type { B } from './b.js';\nexport const a = (b: B) => b;\n",
      'packages/alpha/src/b.ts': "export type B = import('./a.js').A;\n",
    });
    const circles = findCircles(buildImportGraph(root));
    expect(circles.map((c) => c.chain)).toEqual([
      ['packages/alpha/src/a.ts', 'packages/alpha/src/b.ts', 'packages/alpha/src/a.ts'],
    ]);
  });

  it('follows @auction-ops package imports to their source entry', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "export * from '@auction-ops/beta';\n",
      'packages/beta/src/index.ts': "import { x } from './x';\nexport { x };\n",
      'packages/beta/src/x/index.ts': "import type {} from '@auction-ops/alpha';\nexport const x = 1;\n",
    });
    const [circle] = findCircles(buildImportGraph(root));
    expect(circle.chain).toEqual([
      'packages/alpha/src/index.ts',
      'packages/beta/src/index.ts',
      'packages/beta/src/x/index.ts',
      'packages/alpha/src/index.ts',
    ]);
  });

  it('finds none in a tree without a circle', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "export * from './a.js';\nexport * from '@auction-ops/beta';\n",
      'packages/alpha/src/a.ts': "import type { B } from '@auction-ops/beta';\nexport type A = B;\n",
      'packages/beta/src/index.ts': "import type { Sql } from 'postgres';\nexport type B = Sql;\n",
    });
    expect(findCircles(buildImportGraph(root))).toEqual([]);
  });

  it('exits 1 and prints the chain from the command line', () => {
    const root = workspace({
      'packages/alpha/src/index.ts': "import './index.js';\n",
      'packages/beta/src/index.ts': 'export {};\n',
    });
    const check = fileURLToPath(new URL('./check.ts', import.meta.url));
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', check, root], { stdio: 'pipe' });
    expect(run).toThrow(/import circle: packages\/alpha\/src\/index\.ts -> packages\/alpha\/src\/index\.ts/);
    rmSync(join(root, 'packages/alpha/src/index.ts'));
    writeFileSync(join(root, 'packages/alpha/src/index.ts'), 'export {};\n');
    expect(run().toString()).toMatch(/no import circles among 2 files/);
  });
});
