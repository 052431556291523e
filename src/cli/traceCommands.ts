// `lumen-rpc trace HASH` and `lumen-rpc dev resource-report`: a running node's traces and resource
// report, from a shell (lumen_traceTransaction and lumen_resourceReport over JSON-RPC).
import type { Command } from 'commander';
import { renderTrace } from '../trace/renderTrace.ts';
import type { TransactionTrace } from '../trace/types.ts';
import { call } from './rpcCall.ts';

const RPC_URL = process.env.LUMEN_RPC_URL ?? 'http://localhost:8000';

export function addTraceCommands(program: Command): void {
  program.command('trace')
    .description('re-execute a transaction the node holds with the host\'s trace on, and print its call tree, costs, state changes and fee')
    .argument('<hash>', 'the transaction\'s hash (hex)')
    .option('--rpc-url <url>', 'the node\'s JSON-RPC endpoint', RPC_URL)
    .option('--json', 'print the trace as JSON (lumen_traceTransaction\'s answer)')
    .action(async (hash: string, opts: { rpcUrl: string; json?: boolean }) => {
      const trace = await call(opts.rpcUrl, 'lumen_traceTransaction', { hash }) as TransactionTrace;
      process.stdout.write(opts.json ? `${JSON.stringify(trace, null, 2)}\n` : renderTrace(trace));
    });
}

/** Under `dev`: the resource report of what the network applied since a ledger or a snapshot. */
export function addResourceReportCommand(dev: Command): void {
  dev.command('resource-report')
    .description('per contract and function: calls, CPU and memory as the host metered them, reads, writes, events, rent and fees charged (lumen_resourceReport)')
    .option('--since-ledger <ledger>', 'the first ledger reported')
    .option('--snapshot <id>', 'report what was applied since this snapshot (lumen-rpc dev snapshot)')
    .option('--to-ledger <ledger>', 'the last ledger reported (default: the latest)')
    .option('--format <format>', 'markdown or json', 'markdown')
    .option('--rpc-url <url>', 'the node\'s JSON-RPC endpoint', RPC_URL)
    .action(async (opts: { sinceLedger?: string; snapshot?: string; toLedger?: string; format: string; rpcUrl: string }) => {
      if (opts.format !== 'markdown' && opts.format !== 'json') throw new Error('--format must be markdown or json');
      const params: Record<string, unknown> = { format: opts.format };
      if (opts.sinceLedger !== undefined) params.startLedger = Number(opts.sinceLedger);
      if (opts.snapshot !== undefined) params.snapshotId = opts.snapshot;
      if (opts.toLedger !== undefined) params.endLedger = Number(opts.toLedger);
      const answer = await call(opts.rpcUrl, 'lumen_resourceReport', params) as { report: unknown; markdown?: string };
      process.stdout.write(opts.format === 'markdown' ? answer.markdown ?? '' : `${JSON.stringify(answer.report, null, 2)}\n`);
    });
}
