// Version facts for getVersionInfo, read once from package.json and git when available.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const STARTED = new Date().toISOString();

let commit: string | undefined;

/** HEAD's hash, asked of git once, when first wanted: running git is no part of a node's start. */
function commitHash(): string {
  if (commit === undefined) {
    commit = '';
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: new URL('..', import.meta.url), stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    } catch { /* not a git checkout */ }
  }
  return commit;
}

export interface BuildInfo { version: string; readonly commitHash: string; buildTimestamp: string; captiveCoreVersion: string }

/** The facts; `commitHash` is a getter (so copy it with Object.assign onto a target, not by spreading). */
export function buildInfo(): BuildInfo {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return {
    version: pkg.version,
    get commitHash() { return commitHash(); },
    buildTimestamp: STARTED,
    // there is no stellar-core: the standalone network is embedded
    captiveCoreVersion: `lumen-rpc embedded standalone network ${pkg.version}`,
  };
}
