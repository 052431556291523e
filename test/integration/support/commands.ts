// Commands run as from a user's shell: a given folder of tools first on PATH (the project's Node,
// since the runners' scripts start with `#!/usr/bin/env node`), and not as a child of this test run
// (node:test skips a run nested in one, which it tells by NODE_TEST_CONTEXT).
import { spawnSync } from 'node:child_process';

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment as a user's shell would have it, with `pathFirst` ahead of PATH and `env` added. */
export function userEnv(pathFirst: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _nested, ...inherited } = process.env;
  return { ...inherited, PATH: `${pathFirst}:${process.env.PATH}`, ...env };
}

/** Runs `command` in `cwd` with `pathFirst` ahead of PATH and `env` added; four minutes at most. */
export function runCommand(command: string, args: string[], opts: { cwd: string; pathFirst: string; env?: Record<string, string> }): CommandResult {
  const r = spawnSync(command, args, { cwd: opts.cwd, env: userEnv(opts.pathFirst, opts.env), encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
