// `auction-ops auction`'s arguments, read before the command's module (and the database) is loaded.
import { defineCommand, instant, noMorePositionals } from '../command-spec.js';
import { UsageError } from '../usage-error.js';

export const auctionUsage = defineCommand({
  usage: `usage: auction-ops auction export <slug|id> --out FILE [--include-secrets]
       auction-ops auction import FILE [--create]
       auction-ops auction restore <slug|id> --to-time ISO-8601 [--yes] [--target T]
The passphrase of --include-secrets (and of importing such an archive) comes from AUCTION_ARCHIVE_PASSPHRASE,
else it is asked for on the terminal. An import refuses an archive that decompresses past
AUCTION_ARCHIVE_MAX_BYTES (docs/auction-data.md). --create: DATA_DIR may hold no database yet; one is
made, migrated, and the auction imported into it. --to-time: an ISO-8601 date and time with an offset or Z.`,
  subcommands: ['export', 'import', 'restore'],
  options: {
    out: { type: 'string' },
    'include-secrets': { type: 'boolean', default: false },
    'to-time': { type: 'string' },
    yes: { type: 'boolean', default: false },
    target: { type: 'string' },
    create: { type: 'boolean', default: false },
  },
  check({ values, positionals }) {
    const [action, subject] = positionals;
    if (action !== 'export' && action !== 'import' && action !== 'restore')
      throw new UsageError(action ? `unknown action "${action}"` : 'which action?');
    const allowed = { export: ['out', 'include-secrets'], import: ['create'], restore: ['to-time', 'yes', 'target'] };
    const given = Object.entries(values).filter(([, value]) => value !== undefined && value !== false);
    const stray = given.find(([name]) => !allowed[action].includes(name));
    if (stray) throw new UsageError(`--${stray[0]} does not belong to auction ${action}`);
    if (!subject) throw new UsageError(`auction ${action} needs ${action === 'import' ? 'a FILE' : 'an auction'}`);
    noMorePositionals(positionals, 2);
    if (action === 'export') {
      if (!values.out) throw new UsageError('auction export needs --out FILE');
      return { action, auction: subject, out: values.out, includeSecrets: values['include-secrets'] } as const;
    }
    if (action === 'import') return { action, file: subject, create: values.create } as const;
    if (!values['to-time']) throw new UsageError('auction restore needs --to-time, the time to restore to');
    const toTime = instant('--to-time', values['to-time']);
    return { action, auction: subject, toTime, yes: values.yes, target: values.target } as const;
  },
  run: async (args) => (await import('./auction.js')).auctionCommand(args),
});
