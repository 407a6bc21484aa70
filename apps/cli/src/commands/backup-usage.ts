// `auction-ops backup`'s arguments, read before the command's module (and the backup target) is loaded.
import { defineCommand, instant, noMorePositionals } from '../command-spec.js';
import { UsageError } from '../usage-error.js';

export const backupUsage = defineCommand({
  usage: `usage: auction-ops backup create [--target T] [--json]
       auction-ops backup list [--target T] [--json]
       auction-ops backup restore <id|latest> --data-dir DIR [--to-time ISO-8601] [--target T] [--json]
       auction-ops backup drill [--target T] [--json]
  --to-time: an ISO-8601 date and time with an offset or Z (2026-12-06T09:30:00Z); see docs/backups.md`,
  subcommands: ['create', 'list', 'restore', 'drill'],
  options: {
    target: { type: 'string' },
    json: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    'to-time': { type: 'string' },
  },
  check({ values, positionals }) {
    const [action, id] = positionals;
    const common = { target: values.target, json: values.json };
    if (action === 'create' || action === 'list' || action === 'drill') {
      noMorePositionals(positionals, 1);
      for (const name of ['data-dir', 'to-time'] as const)
        if (values[name] !== undefined) throw new UsageError(`--${name} belongs to backup restore`);
      return { action, ...common } as const;
    }
    if (action !== 'restore') throw new UsageError(action ? `unknown action "${action}"` : 'which action?');
    if (!id) throw new UsageError('backup restore needs a backup id, or latest');
    noMorePositionals(positionals, 2);
    const dataDir = values['data-dir'];
    if (!dataDir) throw new UsageError('backup restore needs --data-dir DIR, where the restored DATA_DIR goes');
    const toTime = values['to-time'] === undefined ? undefined : instant('--to-time', values['to-time']);
    return { action, id, dataDir, toTime, ...common } as const;
  },
  run: async (args) => (await import('./backup.js')).backupCommand(args),
});
