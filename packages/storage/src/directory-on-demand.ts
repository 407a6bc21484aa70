// Files go into directories that nearly always exist already (the spool directory, one of 256 per bucket): making
// the directory before every write cost a syscall on every upload. It is made when the write says it is missing.
import { mkdir } from 'node:fs/promises';

/** Runs `write`; when it fails because `dir` is missing (ENOENT), makes `dir` and runs it once more. */
export async function inDirectory<T>(dir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    return write();
  }
}
