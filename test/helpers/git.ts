import { execFileSync } from 'node:child_process';

/**
 * Runs git in `dir` as the tests' own author and returns what it printed, trimmed. Nothing of the
 * machine's git setup takes part: no system configuration, and HOME is the folder itself, so a
 * developer's global hooks, signing or default branch cannot change what a test sees.
 */
export function git(dir: string, ...args: string[]): string {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
  const author = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];
  return execFileSync('git', [...author, ...args], { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' }).trim();
}

/** Commits everything in `dir` with `message` and returns the commit. */
export function commitAll(dir: string, message: string): string {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** Makes `dir` a repository on `main` whose first commit holds everything in it; returns that commit. */
export function initRepository(dir: string, message = 'base'): string {
  git(dir, 'init', '-q', '-b', 'main');
  return commitAll(dir, message);
}

/** `git` run in `dir`, for a fixture that hands its tests one repository. */
export function gitIn(dir: string): (...args: string[]) => string {
  return (...args) => git(dir, ...args);
}
