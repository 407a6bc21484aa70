// WAL segment names and the commands PostgreSQL runs to archive and fetch them (wal-command.mjs).
import { fileURLToPath } from 'node:url';

export const WAL_COMMAND = fileURLToPath(new URL('./wal-command.mjs', import.meta.url));
/** 16 MB segments (the embedded cluster's default): 256 per 4 GB "log id". */
const SEGMENTS_PER_ID = 0x100;

/** The segment names from `first` to `last` inclusive (same timeline), e.g. 000000010000000000000003. */
export function segmentRange(first: string, last: string): string[] {
  const timeline = first.slice(0, 8);
  const number = (name: string) =>
    Number.parseInt(name.slice(8, 16), 16) * SEGMENTS_PER_ID + Number.parseInt(name.slice(16), 16);
  const names: string[] = [];
  for (let n = number(first); n <= number(last); n++) {
    const hex = (value: number) => value.toString(16).toUpperCase().padStart(8, '0');
    names.push(`${timeline}${hex(Math.floor(n / SEGMENTS_PER_ID))}${hex(n % SEGMENTS_PER_ID)}`);
  }
  return names;
}

/** Single-quoted for /bin/sh, with % doubled so PostgreSQL does not read it as a placeholder. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''").replaceAll('%', '%%')}'`;
}

/** Copies segments from the restore's local directory of verified WAL. */
export function restoreCommand(walDir: string): string {
  return `${shellQuote(process.execPath)} ${shellQuote(WAL_COMMAND)} restore ${shellQuote(walDir)} %f %p`;
}
