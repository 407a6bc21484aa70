// The last guard in a real process: an error that escapes every handler becomes a logged 500 for its request and
// is counted; the process keeps serving.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from './support/loopback.js';

let child: ChildProcess;
let out = '';
let base: string;

beforeAll(async () => {
  const script = fileURLToPath(new URL('./support/guarded-process.ts', import.meta.url));
  child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout?.on('data', (d) => {
    out += d;
  });
  await until(() => /port \d+/.test(out), 'the guarded process', 20_000);
  base = `http://127.0.0.1:${/port (\d+)/.exec(out)![1]}`;
});
afterAll(() => {
  child?.kill('SIGKILL');
});

it("answers 500 for the request whose 'error' event nobody heard, logs it, and goes on serving", async () => {
  const failed = await fetch(`${base}/emit`);
  expect(failed.status).toBe(500);
  expect(await failed.json()).toEqual({ message: 'internal server error' });
  // The log line comes through the child's stdout pipe, which may lag the answer.
  const logged = '"level":"error","msg":"escaped error caught; the process goes on","kind":"uncaught exception"';
  await until(() => out.includes(logged), 'the escaped error logged');
  expect(out).toContain('"error":"nobody listens"');
  expect(out).toContain('"method":"GET","path":"/emit"');
  const ok = await fetch(`${base}/ok`);
  expect(await ok.json()).toMatchObject({ escapedErrors: 1 });
});

it('answers 500 for an unhandled rejection and counts it', async () => {
  const failed = await fetch(`${base}/reject`);
  expect(failed.status).toBe(500);
  await until(() => out.includes('"kind":"unhandled rejection","error":"nobody awaits"'), 'the rejection logged');
  expect(child.exitCode).toBeNull();
  expect(await (await fetch(`${base}/ok`)).json()).toMatchObject({ escapedErrors: 2 });
});
