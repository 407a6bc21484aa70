// How long a postgres.js connection waits before it tries again after a failed attempt. The library's default
// grows with the failures of the whole pool (3^n / 100 s, up to 20 s, reset only by a successful connection): a
// few seconds of database outage under load leave every connection waiting 10-20 s after the database is back,
// and requests queue until their pool timeout. Capped at one second here; the availability gate keeps requests
// away from the pools while the database is down, so the retries stay few.
const CAP_SECONDS = 1;

/** postgres.js `backoff` option (seconds): 50 ms doubling per failure in a row, at most one second. */
export function reconnectBackoff(retries: number): number {
  return Math.min(CAP_SECONDS, 0.05 * 2 ** Math.max(0, retries - 1));
}
