// The archive reader stopped half-way (an archive refused on its first bad frame) must let go of its file and
// settle: on Node 22 a pipeline whose streams were only destroyed never settled, and the import hung there.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { ArchiveReader } from '../src/archive-frames.js';

const dir = mkdtempSync(join(tmpdir(), 'archive-frames-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function frame(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

it('settles and closes the file when its reader stops after the first frames of a long archive', async () => {
  const path = join(dir, 'long.gz');
  const rows = Array.from({ length: 1000 }, () => frame('D', Buffer.alloc(64 * 1024)));
  writeFileSync(path, gzipSync(Buffer.concat([frame('H', Buffer.from('{}')), ...rows])));
  const input = createReadStream(path);
  const frames = new ArchiveReader(input, 1024 ** 3).frames();
  expect((await frames.next()).value?.type).toBe('H');
  expect((await frames.next()).value?.type).toBe('D');
  expect((await frames.return(undefined)).done).toBe(true);
  // Aborted, the file stream emits an AbortError (the reader's pipeline takes it) and then closes.
  if (!input.closed) await new Promise<void>((closed) => input.once('close', () => closed()));
  expect(input.destroyed).toBe(true);
});

it('reads every frame of a whole archive and ends', async () => {
  const path = join(dir, 'whole.gz');
  writeFileSync(path, gzipSync(Buffer.concat([frame('H', Buffer.from('{}')), frame('E', Buffer.alloc(0))])));
  const types: string[] = [];
  for await (const f of new ArchiveReader(createReadStream(path), 1024).frames()) types.push(f.type);
  expect(types).toEqual(['H', 'E']);
});
