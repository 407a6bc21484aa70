import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { inDirectory } from './directory-on-demand.js';

const root = mkdtempSync(join(tmpdir(), 'directory-on-demand-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('makes a missing directory and writes again', async () => {
  const dir = join(root, 'a', 'b');
  let attempts = 0;
  await inDirectory(dir, () => {
    attempts++;
    return writeFile(join(dir, 'file'), 'bytes');
  });
  expect(readFileSync(join(dir, 'file'), 'utf8')).toBe('bytes');
  expect(attempts).toBe(2);
});

it('writes once into a directory that exists, and passes other failures on untried', async () => {
  let attempts = 0;
  await inDirectory(root, () => {
    attempts++;
    return writeFile(join(root, 'present'), 'x');
  });
  expect(attempts).toBe(1);
  writeFileSync(join(root, 'taken'), 'x');
  attempts = 0;
  const exclusive = inDirectory(root, () => {
    attempts++;
    return writeFile(join(root, 'taken'), 'y', { flag: 'wx' });
  });
  await expect(exclusive).rejects.toMatchObject({ code: 'EEXIST' });
  expect(attempts).toBe(1);
});
