// The auction-ops commands but `start` without arguments and `--version` (main.ts): reads the command's arguments
// from the table (command-table.ts), then loads and runs that command alone.
import { HelpRequested } from './command-spec.js';
import { commands } from './command-table.js';
import { UsageError } from './usage-error.js';

const HELP = `usage: auction-ops <command>

  start                      the server: HTTP, background workers, WEB_CONCURRENCY processes
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
  backup create|list|drill   online base backups to BACKUP_TARGET or --target T; a restore drill (docs/backups.md)
  backup restore <id|latest> --data-dir DIR [--to-time ISO-8601]
                             a new DATA_DIR from a backup and the WAL archive (point-in-time with --to-time)
  db upgrade [--old-bin-dir DIR] [--backup-target T | --no-backup]
                             carry the embedded cluster of an older PostgreSQL major to this release's;
                             keeps the old one (see docs/operations.md, "PostgreSQL major versions")
  auction export <slug|id> --out FILE [--include-secrets]
                             one auction's rows and objects as an archive (see docs/auction-data.md)
  auction import FILE [--create]
                             an exported auction into this instance (ids kept; refused on conflicts)
  auction restore <slug|id> --to-time ISO-8601 [--yes]
                             one auction as it was at that time, from the backups; others untouched
  gen types typescript [--schema a,b] [--db-url URL]
                             the Database type for createClient<Database>() (see docs/rest.md)

Each command answers --help with its own usage. Configuration comes from the environment (see README): DATA_DIR,
DATABASE_URL, JWT_SECRET, ...`;

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
    // Arguments first: a mistake in them touches nothing (no DATA_DIR, no cluster, no connection).
    await command.start(args)();
  } catch (error) {
    await fail(name, error);
  }
}

async function fail(name: string, error: unknown): Promise<never> {
  if (error instanceof HelpRequested) {
    console.log(error.usage);
    process.exit(0);
  }
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  // Loaded only here (a usage error has exited already): the configuration's module is a command's.
  const { ConfigError } = await import('@auction-ops/server-config');
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(`auction-ops ${name}: ${(error as Error).message}`);
  process.exit(1);
}
