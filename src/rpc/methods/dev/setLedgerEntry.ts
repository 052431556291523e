// lumen_setLedgerEntry: sets any ledger entry (a LedgerEntry or LedgerEntryData, base64 XDR or JSON) in
// the next ledger, closed at once; a contract entry without a live TTL gets the network's minimum.
import { object, ledgerSequence, optional } from '../shared/schemas.ts';
import { encodeLedgerKey, toBase64 } from '../../../xdr/codec.ts';
import { ledgerKeyOf } from '../../../xdr/ledgerKeys.ts';
import { setLedgerEntry as setEntry, type SetEntryResult } from '../../../standalone/stateEdits.ts';
import { parseEntry, runEdit, xdrParam } from './shared/stateParams.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const setLedgerEntry: DevMethod = {
  name: 'lumen_setLedgerEntry',
  cli: { command: 'set-ledger-entry', args: ['entry'] },
  paramsSchema: {
    type: 'object',
    properties: { entry: xdrParam('a LedgerEntry or LedgerEntryData: base64 XDR or its JSON form') },
    required: ['entry'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set any ledger entry',
    description: 'Recorded as an upgrade of the next ledger, which closes at once. TTL and ConfigSetting entries are refused.',
    result: {
      name: 'setLedgerEntryResult',
      schema: object({
        ledger: ledgerSequence, key: { type: 'string', description: 'the entry\'s LedgerKey (base64 XDR)' }, created: { type: 'boolean' },
        liveUntilLedgerSeq: optional(ledgerSequence),
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const entry = parseEntry(params.entry);
    let result: SetEntryResult | undefined;
    const ledger = await runEdit(network, (ltx) => { result = setEntry(ltx, entry); });
    return { ledger, key: toBase64(encodeLedgerKey(ledgerKeyOf(entry.data))), ...result };
  },
};
