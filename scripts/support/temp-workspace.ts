// Tiny temporary workspaces for the tests of the repository's own checks (import circles, unused exports): two
// packages, alpha and beta, with their entry points, plus the files a test gives. `cleanUp` removes them all.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempWorkspaces(prefix: string) {
  const roots: string[] = [];
  return {
    workspace(files: Record<string, string>): string {
      const root = mkdtempSync(join(tmpdir(), prefix));
      roots.push(root);
      const entry = (name: string) => JSON.stringify({ name, exports: { '.': './src/index.ts' } });
      const all = {
        'packages/alpha/package.json': entry('@auction-ops/alpha'),
        'packages/beta/package.json': entry('@auction-ops/beta'),
        ...files,
      };
      for (const [path, text] of Object.entries(all)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return root;
    },
    cleanUp(): void {
      for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
    },
  };
}
