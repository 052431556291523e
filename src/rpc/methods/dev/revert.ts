// lumen_revert: takes the network back to a snapshot (ledgers, transactions, events, state and the
// transaction queue) or to the end of any stored ledger; the next ledger chains onto that one.
import { arrayOf, hexHash, ledgerSequence, object } from '../shared/schemas.ts';
import { revert as revertNetwork, RevertRefused } from '../../../standalone/snapshots.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const revert: DevMethod = {
  name: 'lumen_revert',
  cli: { command: 'revert', args: ['id'] },
  paramsSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'a snapshot id from lumen_snapshot' },
      ledger: { type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: 'or: a stored ledger to go back to (the queue is emptied)' },
    },
    additionalProperties: false,
  },
  doc: {
    summary: 'Revert the network to a snapshot or a ledger',
    result: {
      name: 'revertResult',
      schema: object({
        ledger: ledgerSequence,
        hash: hexHash,
        queued: { type: 'integer', minimum: 0, description: 'transactions back in the queue' },
        dropped: arrayOf({ type: 'string' }, 'snapshot ids dropped by the revert (the reverted one too)'),
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const id = params.id as string | undefined;
    const ledger = params.ledger as number | undefined;
    if ((id === undefined) === (ledger === undefined)) throw devRefused('give exactly one of id (a snapshot id) and ledger (a ledger sequence)');
    try {
      return await revertNetwork(network, ctx.store, ctx.config, id !== undefined ? { id } : { ledger });
    } catch (e) {
      if (e instanceof RevertRefused) throw devRefused(e.message);
      throw e;
    }
  },
};
