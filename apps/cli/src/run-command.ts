// The auction-ops commands but `start` and `--version` (main.ts): a thin dispatcher over the packages.
import { ConfigError } from '@auction-ops/server-config';
import { migrateCommand } from './commands/migrate.js';
import { statusCommand } from './commands/status.js';
import { keysCommand } from './commands/keys.js';
import { superAdminCommand, UsageError } from './commands/super-admin.js';
import { mailCommand } from './commands/mail.js';
import { pushCommand } from './commands/push.js';
import { seedCommand } from './commands/seed.js';
import { analyticsCommand } from './commands/analytics.js';
import { backupCommand } from './commands/backup.js';
import { genCommand } from './commands/gen-types.js';
import { dbCommand } from './commands/db-upgrade.js';
import { auctionCommand } from './commands/auction.js';
import { AuctionDataError } from '@auction-ops/auction-data';
import { BackupError } from '@auction-ops/backups';
import { MajorUpgradeError, PostgresVersionError } from '@auction-ops/database';
import { withDatabase } from './database.js';

const HELP = `usage: auction-ops <command>

  start                      the server (as \`pnpm start\`: HTTP, background workers, WEB_CONCURRENCY processes)
  --version, -v              print the release
  migrate                    apply pending migrations
  status                     the server, the database, archiving, the release and pending migrations
  keys                       print the anon and service_role API keys
  super-admin grant <email>  make a user a system-wide administrator (also: revoke <email>, list)
  seed --demo [--scale N] [--days D]
                             create a realistic demo auction (migrates first); prints the users' passwords
  analytics verify|rebuild   compare the analytics rollups with their rows (exit 1 on a difference); recompute
  mail [list|show <id>]      the local mail outbox (used when neither RESEND_API_KEY nor SMTP_URL is set)
  cert [--dir D] [--host H]  a local CA and an HTTPS certificate signed by it (see docs/https.md)
  push [list] [--token T]    the local push outbox (PUSH_PROVIDER=outbox)
  backup create|list         online base backups to BACKUP_TARGET or --target T (see docs/backups.md)
  backup restore <id|latest> --data-dir DIR [--to-time ISO-8601]
                             a new DATA_DIR from a backup and the WAL archive (point-in-time with --to-time)
  db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]
                             carry the embedded cluster of an older PostgreSQL major to this release's;
                             keeps the old one (see docs/operations.md, "PostgreSQL major versions")
  auction export <slug|id> --out FILE [--include-secrets]
                             one auction's rows and objects as an archive (see docs/auction-data.md)
  auction import FILE        an exported auction into this instance (ids kept; refused on conflicts)
  auction restore <slug|id> --to-time ISO-8601 [--yes]
                             one auction as it was at that time, from the backups; others untouched
  gen types typescript [--schema a,b] [--db-url URL]
                             the Database type for createClient<Database>() (see docs/rest.md)

Configuration comes from the environment (see README): DATA_DIR, DATABASE_URL, JWT_SECRET, ...`;

/** A command that takes no arguments refuses any, naming the first: `status --bogus` is a mistake, not a status. */
const withoutArguments =
  (name: string, run: () => Promise<void>) =>
  (args: string[]): Promise<void> => {
    if (args.length > 0) throw new UsageError(`auction-ops ${name}: unknown argument "${args[0]}" (it takes none)`);
    return run();
  };

const commands: Record<string, (args: string[]) => Promise<void>> = {
  migrate: withoutArguments('migrate', migrateCommand),
  status: withoutArguments('status', statusCommand),
  keys: withoutArguments('keys', keysCommand),
  'super-admin': superAdminCommand,
  // Seeding applies pending migrations first: like migrate, it may make the database.
  seed: (args) => withDatabase((db) => seedCommand(args, db), { create: true }),
  mail: (args) => withDatabase((db) => mailCommand(args, db)),
  cert: (args) => import('./commands/cert.js').then((m) => m.certCommand(args)),
  push: (args) => withDatabase((db) => pushCommand(args, db)),
  backup: backupCommand,
  gen: genCommand,
  db: dbCommand,
  auction: auctionCommand,
  analytics: (args) =>
    withDatabase(async (db) => {
      process.exitCode = await analyticsCommand(args, db);
    }),
};

export async function runCommand(name: string | undefined, args: string[]): Promise<void> {
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(HELP);
    process.exit(0);
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    console.error(`auction-ops: unknown command "${name}"\n\n${HELP}`);
    process.exit(2);
  }
  try {
    await command(args);
  } catch (error) {
    fail(name, error);
  }
}

function fail(name: string | undefined, error: unknown): never {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  if (
    error instanceof BackupError ||
    error instanceof MajorUpgradeError ||
    error instanceof PostgresVersionError ||
    error instanceof AuctionDataError
  ) {
    console.error(`auction-ops ${name}: ${error.message}`);
    process.exit(1);
  }
  console.error(`auction-ops ${name}: ${(error as Error).message}`);
  process.exit(1);
}
