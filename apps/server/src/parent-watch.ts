// A server started by a package manager (`pnpm start`, `npx auction-ops start`) has for its parent only the wrapper
// that runs it. Wrappers pass SIGINT and SIGTERM on to their child, but a wrapper killed outright (SIGKILL after a
// supervisor's stop timeout), or a shell between them killed by SIGTERM, passes nothing on: the server would serve on
// as an orphan, holding the port and DATA_DIR against the supervisor's next start.

/** Package managers set npm_lifecycle_event in the environment of the scripts and commands they run. */
export function startedByPackageManager(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.npm_lifecycle_event);
}

/** Calls `onOrphaned` once when this process's parent has exited (it is then re-parented); checks every `everyMs`. */
export function watchParent(onOrphaned: () => void, everyMs = 1000): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    // process.ppid is read from the kernel on each access.
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
