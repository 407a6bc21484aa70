// The upstream postgrest-js suites are not kept in this repository: `pnpm conformance` stages them from a checkout
// of the upstream repository (a work tree, or a bare git directory such as a mirror) into .tmp/conformance/<suite>,
// inside the repository so that the tests resolve their packages from its node_modules.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface Upstream {
  /** The environment variable naming the checkout. */
  readonly env: string;
  readonly repo: string;
  /** The commit the fixtures, configuration and known failures were written against. */
  readonly commit: string;
  /** The client's folder inside the repository ('' for the root). */
  readonly subdir: string;
}

/** How to get the checkout, printed when it is missing. */
export function howToGet(u: Upstream, suite: string): string {
  return [
    `conformance ${suite}: no upstream checkout; set ${u.env} (or pass its path after the suite name) to a checkout`,
    `of ${u.repo} at ${u.commit}, a work tree or a bare git directory, e.g.:`,
    `  git clone <the public ${u.repo} repository> /tmp/${u.repo.split('/')[1]}`,
    `  git -C /tmp/${u.repo.split('/')[1]} checkout ${u.commit}`,
    `  ${u.env}=/tmp/${u.repo.split('/')[1]} pnpm conformance ${suite}`,
  ].join('\n');
}

const isGitDir = (path: string) => existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects'));

/** Copies the client's src/ and test/ at the pinned commit into `stage`; returns the staged root. */
export function stageUpstream(u: Upstream, checkout: string, stage: string): string {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const parts = ['src', 'test'].map((p) => (u.subdir ? `${u.subdir}/${p}` : p));
  if (isGitDir(checkout)) {
    const archive = execFileSync('git', ['--git-dir', checkout, 'archive', u.commit, ...parts], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', stage], { input: archive });
  } else {
    if (!existsSync(join(checkout, parts[1]!))) throw new Error(`${u.env}=${checkout} has no ${parts[1]}`);
    const head = execFileSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    if (head !== u.commit) console.warn(`conformance: ${checkout} is at ${head}, the counts were taken at ${u.commit}`);
    for (const p of parts) cpSync(join(checkout, p), join(stage, p), { recursive: true });
  }
  return u.subdir ? join(stage, u.subdir) : stage;
}

/**
 * The folder `packages/core/<client>` of a supabase-js checkout named by the environment variable `env`, checked by
 * a file it must hold; without it, says how to get one and exits.
 */
export function supabaseJsClientDir(env: string, client: string, marker: string, script: string): string {
  const dir = process.env[env];
  if (dir && existsSync(join(dir, marker))) return dir;
  console.error(
    `Set ${env} to packages/core/${client} of a supabase-js checkout, e.g.\n` +
      '  git clone --depth 1 https://github.com/supabase/supabase-js /tmp/supabase-js\n' +
      `  ${env}=/tmp/supabase-js/packages/core/${client} pnpm ${script}`,
  );
  process.exit(1);
}
