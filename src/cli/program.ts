// The lumen-rpc command line: `start` runs a node, `gen-config` prints a TOML configuration, `replay`
// checks the ledger engine against a real network's closed ledgers.
// First, so that it runs before any other module's code (see the file).
import './keepNextTickFast.ts';
import { Command } from 'commander';
import { loadConfig, configToToml } from '../config/load.ts';
import { options, parseOption } from '../config/options.ts';
import { createLogger } from '../log.ts';
import { startNode } from '../node.ts';
import { replayCommand } from '../replay/replayCommand.ts';
import { DEFAULT_MAX_INPUT_BYTES } from '../io/inputCaps.ts';
import { addDevCommands } from './devCommand.ts';
import { addTraceCommands } from './traceCommands.ts';

const program = new Command('lumen-rpc').description('A Stellar smart-contract JSON-RPC node with an embedded standalone network');

function withConfigOptions(cmd: Command): Command {
  for (const o of options) {
    // a switch alone means true (`--serve-ledgers-from-datastore`, as the reference's flags); `--friendbot false` still works
    const value = o.kind === 'bool' || o.values?.includes('true') ? '[value]' : '<value>';
    cmd.option(`--${o.flag} ${value}`, o.help + (o.values ? ` (${o.values.join('|')})` : ''));
  }
  return cmd
    .option('--config-path <file>', 'TOML configuration file (env LUMEN_RPC_CONFIG_PATH)')
    .option('--config-strict', 'reject unknown keys in the configuration file');
}

/** Commander camel-cases flags; the config loader wants them as typed on the command line. */
function givenFlags(cmd: Command): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  const values = cmd.opts();
  for (const o of options) {
    const camel = o.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (values[camel] !== undefined) given[o.flag] = values[camel];
  }
  return given;
}

function configFrom(cmd: Command) {
  const opts = cmd.opts();
  return loadConfig({
    flags: givenFlags(cmd),
    env: process.env,
    configPath: (opts.configPath as string | undefined) ?? process.env.LUMEN_RPC_CONFIG_PATH,
    strict: Boolean(opts.configStrict),
  });
}

withConfigOptions(program.command('start').description('serve the JSON-RPC API over a standalone network'))
  .action(async (_opts, cmd: Command) => {
    const config = configFrom(cmd);
    const logger = createLogger(config);
    const node = await startNode(config, logger);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      node.close().then(() => process.exit(0), (e) => { logger.error({ err: e }, 'shutdown failed'); process.exit(1); });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    // a node that cannot go on stops as a failed start does: one line, exit code 2
    void node.fatal.then((e) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`lumen-rpc: ${e.message}\n`);
      const force = setTimeout(() => process.exit(2), 10_000);
      force.unref();
      node.close().finally(() => process.exit(2));
    });
  });

withConfigOptions(program.command('gen-config').description('print the effective configuration as TOML'))
  .action((_opts, cmd: Command) => { process.stdout.write(configToToml(configFrom(cmd))); });

program.command('replay')
  .description('apply the classic transactions of closed ledgers (LedgerCloseMeta files: raw or .gz, SEP-54 batches, meta streams) with the engine and compare with what the network recorded')
  .argument('<files...>', 'files of consecutive ledgers, in any order')
  .option('--json <file>', 'also write a machine-readable summary to this file')
  .option('--network-passphrase <passphrase>', 'the network the ledgers are from (default: told from the transactions, among the public networks)')
  .option('--all-differences', 'list the differences of transactions with unsupported operation types too')
  .option('--max-input-bytes <bytes>', `the most bytes one file may hold, as read and once decompressed (default ${DEFAULT_MAX_INPUT_BYTES}); a larger one is refused`)
  .action((files: string[], opts: { json?: string; networkPassphrase?: string; allDifferences?: boolean; maxInputBytes?: string }) => {
    // read as the start command reads the flag, with the same errors
    const maxInputBytes = opts.maxInputBytes === undefined ? undefined
      : parseOption(options.find((o) => o.key === 'maxInputBytes')!, opts.maxInputBytes) as number;
    process.stdout.write(replayCommand(files, { ...opts, maxInputBytes }));
  });

addDevCommands(program);
addTraceCommands(program);

program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`lumen-rpc: ${(e as Error).message}\n`);
  process.exit(2);
});
