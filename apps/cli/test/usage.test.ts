// Every command and subcommand of the table (command-table.ts: a new one is walked without a change here), as a
// user runs it: --help prints its usage and exits 0; an unknown option, or arguments it cannot take, exit 2 with
// the usage and touch nothing (no DATA_DIR, no `.data` in the working directory, no cluster). Issue 56, item 2.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commands } from '../src/command-table.js';
import { type CliRun, runCliIn } from './support/run-cli.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-cli-usage-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Each command alone, then each of its subcommands: `backup`, `backup create`, ... `gen types typescript`. */
const paths = Object.entries(commands).flatMap(([name, command]) => [
  [name],
  ...command.subcommands.map((sub) => [name, ...sub.split(' ')]),
]);

/** Runs in a working directory of its own with a DATA_DIR that must not appear; says what either came to hold. */
async function untouched(args: string[]): Promise<CliRun & { made: string[] }> {
  const cwd = mkdtempSync(join(root, 'cwd-'));
  const dataDir = join(root, `data-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}-${Math.random()}`);
  const run = await runCliIn(cwd, { DATA_DIR: dataDir, JWT_SECRET: 'u'.repeat(40) }, ...args);
  const made = [...readdirSync(cwd).map((f) => join(cwd, f)), ...(existsSync(dataDir) ? [dataDir] : [])];
  return { ...run, made };
}

/** Runs `work` over `items`, `width` at a time: every run starts a Node process, and the machine has two cores. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item; item = queue.shift()) await work(item);
    }),
  );
}

// About 70 runs of the command, each a Node process, three at a time on a loaded machine.
const RUNS = 150_000;

it(
  'walks every command: --help prints its usage and exits 0',
  async () => {
    expect(paths.length).toBeGreaterThan(Object.keys(commands).length);
    await eachLimited(paths, 3, async (path) => {
      const help = await untouched([...path, '--help']);
      expect(help.code, `${path.join(' ')} --help: ${help.out}`).toBe(0);
      expect(help.stdout, path.join(' ')).toContain(`usage: auction-ops ${path[0]}`);
      for (const word of path.slice(1)) expect(help.stdout, path.join(' ')).toContain(word);
      expect(help.made, path.join(' ')).toEqual([]);
    });
    const short = await untouched(['seed', '-h']);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('usage: auction-ops seed --demo');
  },
  RUNS,
);

it(
  'walks every command: an unknown option exits 2 with the usage and creates nothing',
  async () => {
    await eachLimited(paths, 3, async (path) => {
      const run = await untouched([...path, '--no-such-option']);
      expect(run.code, `${path.join(' ')} --no-such-option: ${run.out}`).toBe(2);
      expect(run.stderr, path.join(' ')).toContain("Unknown option '--no-such-option'");
      expect(run.stderr, path.join(' ')).toContain(`usage: auction-ops ${path[0]}`);
      expect(run.made, path.join(' ')).toEqual([]);
    });
  },
  RUNS,
);

it(
  'refuses arguments a command cannot take, naming the mistake, before anything is made',
  async () => {
    const cases: [string[], string][] = [
      [['seed'], 'pass --demo'],
      [['seed', '--demo', '--scale', '0'], '--scale must be a whole number from 1 to 1000, not "0"'],
      [['status', 'now'], 'unknown argument "now"'],
      [['super-admin', 'grant'], 'super-admin grant needs an e-mail'],
      [['backup', 'restore', 'latest'], 'backup restore needs --data-dir DIR'],
      [['backup', 'list', '--to-time', '2026-12-06T09:30:00Z'], '--to-time belongs to backup restore'],
      [['auction', 'import', 'a.gz', '--yes'], '--yes does not belong to auction import'],
      [['analytics', 'verify', '--auction', 'riverside'], "--auction must be an auction's id"],
      [['mail', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 1000'],
      [['db', 'upgrade', '--no-backup', '--backup-target', 'x'], '--backup-target and --no-backup exclude each other'],
    ];
    await eachLimited(cases, 3, async ([args, message]) => {
      const run = await untouched(args);
      expect(run.code, `${args.join(' ')}: ${run.out}`).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain(`usage: auction-ops ${args[0]}`);
      expect(run.made, args.join(' ')).toEqual([]);
    });
  },
  RUNS,
);

// Issue 56, item 3: one reading of every time argument, before a backup target or a database is looked at.
it(
  'refuses a --to-time that is not an ISO-8601 instant with its offset, naming the argument and the form',
  async () => {
    const target = join(root, 'target');
    mkdirSync(target);
    const times = ['yesterday', '2026-13-45T99:00:00Z', '2026-12-06T09:30:00'];
    const runs = times.flatMap((time) => [
      ['backup', 'restore', 'latest', '--data-dir', join(root, 'restored'), '--target', target, '--to-time', time],
      ['auction', 'restore', 'riverside', '--to-time', time, '--yes'],
    ]);
    await eachLimited(runs, 3, async (args) => {
      const run = await untouched(args);
      expect(run.code, `${args.join(' ')}: ${run.out}`).toBe(2);
      expect(run.stderr).toContain(
        `--to-time ${JSON.stringify(args.at(args.indexOf('--to-time') + 1))} is not an ISO-8601 date and time with ` +
          'an offset or Z, such as 2026-12-06T09:30:00Z',
      );
      expect(run.made).toEqual([]);
    });
    expect(existsSync(join(root, 'restored'))).toBe(false);
  },
  RUNS,
);
