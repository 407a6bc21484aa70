// The host's own speed, measured the same way before and after each run: the same traffic used 62 % of this
// shared machine's two cores at 14:58 and 44 % at 17:15 the same day, with the same code, so a run's figures are
// the host's hour as much as the server's. Two fixed pieces of work on one core, timed without the run's processes:
// hashing (the CPU alone) and copying a buffer larger than the caches (the memory). Best of five, so that a
// moment's interference does not count; a slower host shows as lower figures.
import { createHash } from 'node:crypto';

export interface HostSpeed {
  /** sha256 of in-cache data, MB/s. */
  hashMbPerS: number;
  /** Copies of a 64 MB buffer, MB/s. */
  copyMbPerS: number;
}

const MB = 1 << 20;

function best(rounds: number, mb: number, work: () => void): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - began);
  }
  return mb / (fastest / 1000);
}

export function measureHostSpeed(rounds = 5): HostSpeed {
  const block = Buffer.alloc(MB, 0x5a);
  const hashMbPerS = best(rounds, 64, () => {
    const hash = createHash('sha256');
    for (let i = 0; i < 64; i++) hash.update(block);
    hash.digest();
  });
  const from = Buffer.alloc(64 * MB, 0x5a);
  const to = Buffer.allocUnsafe(64 * MB);
  const copyMbPerS = best(rounds, 4 * 64, () => {
    for (let i = 0; i < 4; i++) from.copy(to);
  });
  return { hashMbPerS, copyMbPerS };
}

export function hostSpeedLine({ before, after }: { before: HostSpeed; after: HostSpeed }): string {
  const figures = (s: HostSpeed) =>
    `sha256 ${Math.round(s.hashMbPerS).toLocaleString('en-US')} MB/s, copy ${Math.round(s.copyMbPerS).toLocaleString('en-US')} MB/s`;
  return (
    `host speed on one core (a slower host shows lower figures; compare runs at like figures): ${figures(before)} ` +
    `before the run, ${figures(after)} after`
  );
}
