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

export const errors = {
  unknownAuction: (ref: string) => new AuctionDataError('unknown_auction', `no auction with the slug or id "${ref}"`),
  notAnArchive: (why: string) => new AuctionDataError('not_an_archive', `not an auction archive: ${why}`),
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
