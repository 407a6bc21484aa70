// The embedded PostgreSQL's own user must pass through every directory above its cluster: one it cannot is named at
// start, before initdb runs, instead of postgres exiting with "see the log".
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, systemUser, untraversableAncestor } from '../src/index.js';

describe('untraversableAncestor', () => {
  const nobody = { uid: 65534, gid: 65534 };

  it('finds the directory nearest the root that a user has no search permission on', () => {
    const root = mkdtempSync(join(tmpdir(), 'auction-ops-reach-'));
    try {
      mkdirSync(join(root, 'a', 'b'), { recursive: true });
      chmodSync(root, 0o755);
      chmodSync(join(root, 'a'), 0o700);
      chmodSync(join(root, 'a', 'b'), 0o700);
      expect(untraversableAncestor(join(root, 'a', 'b', 'not-yet'), nobody)).toBe(join(root, 'a'));
      chmodSync(join(root, 'a'), 0o711);
      expect(untraversableAncestor(join(root, 'a', 'b', 'not-yet'), nobody)).toBe(join(root, 'a', 'b'));
      chmodSync(join(root, 'a', 'b'), 0o701);
      expect(untraversableAncestor(join(root, 'a', 'b', 'not-yet'), nobody)).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.runIf(systemUser() !== undefined)('an embedded cluster under a closed directory, as root', () => {
  it('is refused with the directory named, and no cluster is made', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'auction-ops-closed-'));
    try {
      const dir = join(closed, 'data', 'postgres');
      await expect(startEmbeddedPostgres({ dir })).rejects.toThrow(`cannot pass through ${closed} (mode 700)`);
      expect(existsSync(join(dir, 'data', 'PG_VERSION'))).toBe(false);
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });
});
