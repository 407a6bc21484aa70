// Sizes for people, in one unit everywhere they are shown (the console's pages, its status checks, the CLI's backup
// lines): decimal units, as disks are sold and `df -H` counts, 1 MB = 10^6 bytes. The CLI once divided by 2^20 and
// called it MB, and listed a backup at 53.0 MB that the console showed at 55.6 MB. No imports: the console's browser
// client and the CLI both load it.

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** `999 B`, `55.6 MB`, `1.2 GB` (decimal units, one decimal); `—` for no number. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
