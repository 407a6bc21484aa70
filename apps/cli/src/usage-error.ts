// A mistake in how a command was called: its message (with the usage) on stderr, exit 2, nothing touched.
export class UsageError extends Error {
  override name = 'UsageError';
}
