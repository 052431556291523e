// simulateTransaction: runs the envelope's one Soroban operation in the native host against the
// latest stored ledger (preflight) and reports the footprint, resource fee, return value, auth
// entries, diagnostic events and state changes. As in the reference node, every failure (bad input,
// a full queue, a host error) is a result with `error` and `latestLedger`, never a JSON-RPC error;
// only params of the wrong JSON type are -32602, and the time limit is -32001 (dispatcher).
import { PreflightQueueFullError } from '../../host/simulator.ts';
import type { Simulation } from '../../host/simulator.ts';
import type { Method, MethodContext } from './types.ts';
import { impersonatedSimulation } from '../../standalone/impersonation.ts';
import {
  AUTH_MODES, ERR_EMPTY_DB, ERR_LEEWAY_RANGE, ERR_QUEUE_FULL, planSimulation, simulationResult, simulationResultSchema,
} from './shared/simulation.ts';
import { xdrFormatParam } from './shared/schemas.ts';
import type { JsonSchema } from './types.ts';
import { transactionTraceSchema } from './shared/traceSchema.ts';
import { traceSimulation } from '../../trace/simulationTrace.ts';
import { tracingOf } from '../../trace/tracing.ts';
import { networkIdOf } from '../../xdr/codec.ts';
import { RpcError, internalError } from '../errors.ts';
import { exhaustedError, simulateOnFork } from '../../fork/simulationDiscovery.ts';
import { ForkFetchError } from '../../fork/forkedState.ts';

const U32_MAX = 0xffff_ffff;

export const simulateTransaction: Method = {
  name: 'simulateTransaction',
  paramsSchema: {
    type: 'object',
    properties: {
      transaction: { type: 'string', description: 'a TransactionEnvelope (base64 XDR) with one Soroban operation; need not be signed' },
      resourceConfig: {
        type: 'object',
        properties: { instructionLeeway: { type: 'integer', minimum: 0, description: 'CPU instructions added to the simulated budget' } },
      },
      authMode: { type: 'string', description: 'default: enforce when the operation carries auth entries, else record' },
      useUpgradedAuth: { type: 'boolean', description: 'record CAP-71 address credentials (recording modes)' },
      xdrFormat: xdrFormatParam,
      trace: { type: 'boolean', description: 'beyond the reference: also the trace of the simulated call as the next ledger would apply it (docs/tracing.md)' },
    },
  },
  doc: {
    summary: 'Simulates a Soroban transaction against the latest ledger (preflight)',
    description: 'Footprint, resource fee, return value, auth entries, events and state changes. Every failure, '
      + 'bad input included, is a result with `error`, not a JSON-RPC error.',
    params: { transaction: { required: true }, authMode: { schema: { enum: [...AUTH_MODES] } } },
    result: { name: 'simulateTransactionResult', schema: withTrace(simulationResultSchema) },
  },
  async handler(params, ctx, { signal }) {
    const plan = planSimulation(params);
    if ('error' in plan) return { error: plan.error, latestLedger: 0 };
    const latest = ctx.store.ledgerRange()?.latest.sequence;
    if (latest === undefined) return { error: ERR_EMPTY_DB, latestLedger: 0 };

    const leeway = (params.resourceConfig as { instructionLeeway?: number } | undefined)?.instructionLeeway ?? 0;
    if (plan.kind === 'invoke' && leeway > U32_MAX) return { error: ERR_LEEWAY_RANGE, latestLedger: latest };
    let sim: Simulation;
    try {
      // impersonated accounts' auth entries are signed by the engine, as apply signs them
      const impersonated = plan.kind === 'invoke' && ctx.dev
        ? impersonatedSimulation(ctx.dev.impersonation, plan.transactionXdr, ctx.dev.networkId, latest) : undefined;
      const run = (): Promise<Simulation> => (plan.kind === 'invoke'
        ? ctx.simulator.invoke({ transactionXdr: impersonated?.transactionXdr ?? plan.transactionXdr }, {
          ...impersonated?.options,
          authMode: plan.authMode,
          useUpgradedAuth: params.useUpgradedAuth === true,
          instructionLeeway: leeway,
          enableDebug: ctx.config.preflightEnableDebug,
          signal,
        })
        : ctx.simulator.footprint({ transactionXdr: plan.transactionXdr }, { signal }));
      // on a fork, what the simulation reads is fetched from the forked network as it finds it
      sim = ctx.fork ? await forkSimulation(ctx, plan.transactionXdr, run, signal) : await run();
      if (impersonated && sim.result) sim = { ...sim, result: { ...sim.result, auth: impersonated.shownAuth(sim.result.auth) } };
    } catch (e) {
      if (e instanceof RpcError) throw e; // the forked network could not be read (src/fork/)
      if (e instanceof PreflightQueueFullError) return { error: ERR_QUEUE_FULL, latestLedger: latest };
      if (signal.aborted) throw e; // timed out while waiting: the dispatcher has answered -32001
      return { error: e instanceof Error ? e.message : String(e), latestLedger: latest };
    }
    // The host reports the ledger it actually ran against (read in the same snapshot as the state).
    const answer = simulationResult(sim, plan, sim.latestLedger || latest);
    if (params.trace === true && plan.kind === 'invoke') Object.assign(answer, simulationTraceMembers(ctx, plan.transactionXdr, sim));
    return answer;
  },
};

/** `trace` (or `traceError` when the call cannot be traced) for `trace: true`; never changes the other members. */
function simulationTraceMembers(ctx: MethodContext, transactionXdr: string, sim: Simulation): Record<string, unknown> {
  if (sim.error || !sim.result || !sim.transactionData) return { traceError: 'the simulation failed: there is no assembled transaction to trace' };
  if (ctx.fork) return { traceError: 'tracing a simulation is not offered on a fork: the state it reads is not all held here' };
  try {
    const trace = traceSimulation(ctx.store, networkIdOf(ctx.config.networkPassphrase), {
      transactionXdr, transactionData: sim.transactionData, auth: sim.result.auth, minResourceFee: sim.minResourceFee,
    }, tracingOf(ctx.store).appliers);
    return { trace };
  } catch (e) {
    return { traceError: (e as Error).message };
  }
}

function withTrace(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  return {
    ...schema,
    properties: { ...properties, trace: transactionTraceSchema, traceError: { type: 'string', description: 'why `trace: true` gave no trace' } },
  };
}

async function forkSimulation(ctx: MethodContext, transactionXdr: string, simulate: () => Promise<Simulation>, signal: AbortSignal): Promise<Simulation> {
  const outcome = await simulateOnFork({
    transactionXdr, simulate, fork: ctx.fork!, storedEntry: (key) => ctx.store.entry(key)?.entry, signal,
  }).catch((e: unknown) => { throw e instanceof ForkFetchError ? internalError(e.message) : e; });
  if (!outcome.exhausted) return outcome.simulation;
  const { latestLedger, events, cost } = outcome.simulation;
  return { error: exhaustedError(outcome.rounds), minResourceFee: '0', events, contractEvents: [], stateChanges: [], cost, latestLedger };
}
