// Rate limits count in fixed windows aligned to the wall clock (a minute window starts at every whole minute, an
// hour window at every whole hour). A test that fills a window must not straddle a boundary, where the count
// starts again.

/** Waits, when needed, until at least `needMs` remain in the current window of `windowMs`. */
export async function awaitWindowRoom(windowMs: number, needMs = 15_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}
