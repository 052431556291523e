// Version facts for getVersionInfo, read once from package.json and git when available.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const STARTED = new Date().toISOString();

export function buildInfo(): { version: string; commitHash: string; buildTimestamp: string; captiveCoreVersion: string } {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  let commitHash = '';
  try {
    commitHash = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: new URL('..', import.meta.url), stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch { /* not a git checkout */ }
  return {
    version: pkg.version,
    commitHash,
    buildTimestamp: STARTED,
    // there is no stellar-core: the standalone network is embedded
    captiveCoreVersion: `lumen-rpc embedded standalone network ${pkg.version}`,
  };
}
