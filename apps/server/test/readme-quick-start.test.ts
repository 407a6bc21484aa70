// The README's quick start, as a reader copies it: its supabase-js snippet runs on the Node this suite runs on (on
// Node 20 createClient throws without a WebSocket transport; issue 56, item 10).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

it("the quick start's supabase-js snippet makes a client with realtime channels", async () => {
  const quickStart = readFileSync(README, 'utf8').split('\n## Quick start\n')[1]!.split('\n## ')[0]!;
  const snippet = /```js\n([\s\S]*?)```/.exec(quickStart)?.[1];
  expect(snippet, 'a ```js block in the quick start').toBeDefined();
  expect(snippet).toContain('transport');
  // Run where the server's packages resolve (supabase-js, ws); a channel is made, nothing is connected.
  const check = `${snippet}\nconsole.log(typeof supabase.channel('quick-start').subscribe);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', check], {
    cwd: SERVER_DIR,
  });
  expect(stdout.trim().split('\n').at(-1)).toBe('function');
});
