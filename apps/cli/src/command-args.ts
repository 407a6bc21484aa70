// A command's options and positionals, read with node:util's parseArgs; a mistake (an unknown option, a missing
// value) is a UsageError: the message with the command's usage, exit 2.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './commands/super-admin.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<const O extends Options>(args: string[], options: O, usage: string) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
}
