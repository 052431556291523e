// lumen_deleteLedgerEntry: deletes a ledger entry (a contract entry with its TTL) in the next ledger,
// closed at once.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { deleteLedgerEntry as deleteEntry } from '../../../standalone/stateEdits.ts';
import { parseKey, runEdit, xdrParam } from './shared/stateParams.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const deleteLedgerEntry: DevMethod = {
  name: 'lumen_deleteLedgerEntry',
  cli: { command: 'delete-ledger-entry', args: ['key'] },
  paramsSchema: {
    type: 'object',
    properties: { key: xdrParam('a LedgerKey: base64 XDR or its JSON form') },
    required: ['key'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Delete a ledger entry',
    description: 'Recorded as an upgrade of the next ledger, which closes at once. TTL and ConfigSetting keys are refused.',
    result: { name: 'deleteLedgerEntryResult', schema: object({ ledger: ledgerSequence }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const key = parseKey(params.key);
    const ledger = await runEdit(network, (ltx) => deleteEntry(ltx, key));
    return { ledger };
  },
};
