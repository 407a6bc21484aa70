// The errors of export, import and restore: one class, stable codes, one factory each. The CLI prints the message
// and exits 1; the console answers them as 4xx.

export class AuctionDataError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: string[] = [],
  ) {
    super(details.length ? `${message}\n  ${details.join('\n  ')}` : message);
    this.name = 'AuctionDataError';
  }
}

/** A value from an archive or a request as a message shows it: quoted, on one line, at most 80 characters. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** A refusal's `why` kept to one line (a database's message may have several). */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

export const errors = {
  unknownAuction: (ref: string) =>
    new AuctionDataError('unknown_auction', `no auction with the slug or id ${shown(ref)}`),
  notAnArchive: (why: string) => new AuctionDataError('not_an_archive', `not an auction archive: ${oneLine(why)}`),
  tooLarge: (max: number) =>
    new AuctionDataError('archive_too_large', `refused: the archive decompresses past ${max} bytes`),
  frameTooLong: (type: string, length: number, max: number) =>
    new AuctionDataError(
      'not_an_archive',
      `not an auction archive: a ${type} frame of ${length} bytes is longer than the ${max} bytes allowed`,
    ),
  unknownTable: (table: unknown) =>
    new AuctionDataError(
      'unknown_table',
      `refused: the archive carries ${shown(table)}, a table an import does not write`,
    ),
  unknownColumn: (table: string, column: string) =>
    new AuctionDataError('unknown_column', `refused: ${table} has no column ${shown(column)} here`),
  unsupportedType: (table: string, column: string, type: unknown) =>
    new AuctionDataError(
      'unsupported_type',
      `refused: ${table}.${column} has the type ${shown(type)}, not one a dataset column may have`,
    ),
  badRows: (table: string, why: string) =>
    new AuctionDataError('not_an_archive', `not an auction archive: the rows of ${table}: ${oneLine(why)}`),
  foreignRows: (table: string, why: string) =>
    new AuctionDataError('foreign_rows', `refused: ${table} has rows outside the archive's auction (${why})`),
  unnamedObject: (key: string) =>
    new AuctionDataError(
      'unnamed_object',
      `refused: the archive carries the object ${shown(key)}, which no row of its auction names`,
    ),
  unsupportedSeal: (what: string) =>
    new AuctionDataError(
      'unsupported_seal',
      `refused: the archive's secrets are sealed with ${what}; this format seals with scrypt (N=32768, r=8, p=1) and AES-256-GCM`,
    ),
  rowsRefused: (why: string) =>
    new AuctionDataError('rows_refused', `refused: the database does not take the archive's rows: ${oneLine(why)}`),
  changedWhileRead: () =>
    new AuctionDataError('archive_changed', 'refused: the archive changed while it was read (nothing was imported)'),
  newerFormat: (version: number) =>
    new AuctionDataError('newer_format', `the archive's format ${version} is newer than this release reads`),
  checksum: (what: string[]) =>
    new AuctionDataError(
      'checksum_mismatch',
      'the archive is damaged: counts or checksums differ from its manifest',
      what,
    ),
  conflicts: (what: string[]) =>
    new AuctionDataError(
      'conflicting_ids',
      'refused: rows of the archive already exist here (nothing was imported)',
      what,
    ),
  dangling: (what: string[]) =>
    new AuctionDataError('dangling_references', 'refused: rows would point at rows that do not exist', what),
  passphraseNeeded: () =>
    new AuctionDataError(
      'passphrase_needed',
      'the archive carries encrypted webhook secrets: give the passphrase (AUCTION_ARCHIVE_PASSPHRASE)',
    ),
  wrongPassphrase: () =>
    new AuctionDataError('wrong_passphrase', "the passphrase does not open the archive's secrets (wrong passphrase?)"),
  needsSuperuser: (what: string) =>
    new AuctionDataError(
      'needs_superuser',
      `${what} needs the database owner to be a superuser (session_replication_role); with DATABASE_URL, connect as one`,
    ),
  noBackupBefore: (time: string) =>
    new AuctionDataError('no_backup_before', `no base backup finished before ${time}: nothing to restore from`),
  declined: () => new AuctionDataError('declined', 'restore cancelled; nothing was changed'),
};
