#!/usr/bin/env node
// PostgreSQL's archive_command and restore_command for a directory target. Plain JavaScript without imports
// beyond Node's own: Postgres runs it (as its system user) for every WAL segment, so it must start fast and
// need nothing from the repository's node_modules.
//   archive <target> <path> <name>   copy a finished segment to <target>/wal/<name> with a .sha256 beside it
//   restore <target> <backup-id> <name> <path>   fetch a segment (archive first, then the backup's own copy)
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

// Exit statuses above 125 make Postgres abort recovery instead of reading the failure as "no such segment":
// a damaged segment must stop a restore, never silently end it early.
const DAMAGED = 200;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function writeDurably(file, bytes) {
  const temp = `${file}.partial`;
  writeFileSync(temp, bytes);
  const fd = openSync(temp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, file);
}

function archive(target, path, name) {
  const dir = join(target, 'wal');
  mkdirSync(dir, { recursive: true });
  const bytes = readFileSync(path);
  const digest = sha256(bytes);
  const file = join(dir, name);
  // PostgreSQL may archive a segment twice (after a crash); the same bytes are success, different ones are not.
  if (existsSync(file) && existsSync(`${file}.sha256`)) {
    if (readFileSync(`${file}.sha256`, 'utf8').trim() === digest) return 0;
    process.stderr.write(`auction-ops wal archive: ${name} already archived with different contents\n`);
    return 1;
  }
  writeDurably(`${file}.sha256`, `${digest}\n`);
  writeDurably(file, bytes);
  return 0;
}

function restore(target, backupId, name, path) {
  const candidates = [join(target, 'wal', name), join(target, 'backups', backupId, 'wal', name)];
  const file = candidates.find((candidate) => existsSync(candidate) && existsSync(`${candidate}.sha256`));
  if (!file) return 1; // not archived (yet): Postgres asks for segments past the end, this is how it learns the end
  const bytes = readFileSync(file);
  if (sha256(bytes) !== readFileSync(`${file}.sha256`, 'utf8').trim()) {
    process.stderr.write(`auction-ops wal restore: ${file} is damaged (checksum mismatch)\n`);
    return DAMAGED;
  }
  writeFileSync(path, bytes);
  return 0;
}

const [command, ...args] = process.argv.slice(2);
try {
  process.exitCode = command === 'archive' ? archive(args[0], args[1], args[2]) : restore(...args);
} catch (error) {
  process.stderr.write(`auction-ops wal ${command}: ${error.message}\n`);
  process.exitCode = 1;
}
