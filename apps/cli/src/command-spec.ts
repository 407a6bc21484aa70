// What a command declares so that its arguments are read and checked before anything is touched (no DATA_DIR, no
// cluster, no connection): its usage, its options, the subcommands the tests walk, a check of what it was given, and
// `run`, which loads the command's module only then. Every run reads this module: it imports node:util and an
// import-free time parser, nothing else.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ISO_INSTANT_FORM, parseIsoInstant } from '@auction-ops/backups/iso-instant';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

export interface Command {
  /** The command's usage: printed for `--help` (exit 0) and after any usage error (exit 2). */
  usage: string;
  /** The words after the command's name that select each of its subcommands (`backup create`); [] for none. */
  subcommands: readonly string[];
  /** Reads and checks `args` (throws UsageError), then runs the command with what it read. */
  start(args: string[]): () => Promise<void>;
}

interface CommandDefinition<O extends Options, A> {
  usage: string;
  subcommands?: readonly string[];
  options: O;
  /** The options and positionals as the command needs them; a UsageError names what is wrong. */
  check(parsed: Parsed<O>): A;
  /** Loads the command's module and runs it: only after `check` accepted the arguments. */
  run(args: A): Promise<void>;
}

/** `--help` or `-h` among a command's arguments: its usage on stdout, exit 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
  constructor(readonly usage: string) {
    super(usage);
  }
}

export function defineCommand<const O extends Options, A>(
  definition: CommandDefinition<O, A>,
): Command & { parse(args: string[]): A } {
  const { usage } = definition;
  const parse = (args: string[]): A => {
    let parsed: Parsed<O>;
    try {
      const options = { ...definition.options, help: { type: 'boolean', short: 'h' } } as const;
      const all = parseArgs({ args, allowPositionals: true, strict: true, options });
      if ((all.values as { help?: boolean }).help) throw new HelpRequested(usage);
      parsed = all as unknown as Parsed<O>;
    } catch (error) {
      if (error instanceof HelpRequested) throw error;
      throw new UsageError(`${(error as Error).message}\n${usage}`);
    }
    try {
      return definition.check(parsed);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`${error.message}\n${usage}`);
      throw error;
    }
  };
  return {
    usage,
    subcommands: definition.subcommands ?? [],
    parse,
    start(args) {
      const checked = parse(args);
      return () => definition.run(checked);
    },
  };
}

/** Refuses positionals past the `count` a command takes, naming the first. */
export function noMorePositionals(positionals: readonly string[], count: number): void {
  if (positionals.length > count) throw new UsageError(`unknown argument "${positionals[count]}"`);
}

/** A whole number from `min` to `max` given as option `name`, or undefined when absent. */
export function wholeNumber(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** A time argument (`--to-time`): one reading for every command (@auction-ops/backups/iso-instant). */
export function instant(name: string, text: string): string {
  const time = parseIsoInstant(text);
  if (!time) throw new UsageError(`${name} ${JSON.stringify(text)} is not ${ISO_INSTANT_FORM}`);
  return time.toISOString();
}
