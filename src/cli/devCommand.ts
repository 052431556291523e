// `lumen-rpc dev <command> [args...]`: the developer methods (lumen_*) of a running standalone node,
// from a shell. Each positional argument fills the param the method's `cli.args` names; `--params`
// gives any others as a JSON object.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { devMethods } from '../rpc/methods/dev/index.ts';
import type { DevMethod } from '../rpc/methods/dev/types.ts';
import { call } from './rpcCall.ts';
import { addResourceReportCommand } from './traceCommands.ts';

export function addDevCommands(program: Command): void {
  const dev = program.command('dev').description('control a running standalone network: close ledgers, move time, snapshot and revert, set state, impersonate');
  addResourceReportCommand(dev);
  for (const method of devMethods) {
    const cmd = dev.command(method.cli.command)
      .description(`${method.doc?.summary ?? method.name} (${method.name})`)
      .option('--rpc-url <url>', 'the node\'s JSON-RPC endpoint', process.env.LUMEN_RPC_URL ?? 'http://localhost:8000')
      .option('--params <json>', 'more params, as a JSON object');
    for (const arg of method.cli.args) cmd.argument(`[${arg}]`);
    const answerTo = method.cli.answerTo;
    if (answerTo !== undefined) cmd.argument(`[${answerTo}]`, 'a file here that gets the answer (default: stdout)');
    const positional = method.cli.args.length + (answerTo === undefined ? 0 : 1);
    cmd.action(async (...given: unknown[]) => {
      const opts = given[positional] as { rpcUrl: string; params?: string };
      const params = devParams(method, given.slice(0, method.cli.args.length) as Array<string | undefined>, opts.params);
      const text = `${JSON.stringify(await call(opts.rpcUrl, method.name, params), null, 2)}\n`;
      const file = answerTo === undefined ? undefined : given[method.cli.args.length] as string | undefined;
      if (file === undefined) process.stdout.write(text);
      else writeFileSync(file, text);
    });
  }
}

/** The params object: `--params` first, then the positional arguments over it. */
export function devParams(method: DevMethod, args: Array<string | undefined>, extra: string | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (extra !== undefined) {
    const parsed: unknown = JSON.parse(extra);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('--params must be a JSON object');
    Object.assign(params, parsed);
  }
  method.cli.args.forEach((name, i) => {
    const value = args[i];
    if (value !== undefined) params[name] = jsonOrText(value);
  });
  return params;
}

/** `42`, `true`, `{"a":1}` are JSON; anything else (a G... address, a mode name) is the text itself. */
function jsonOrText(value: string): unknown {
  try { return JSON.parse(value); } catch { return value; }
}
