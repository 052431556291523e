// lumen_setTtl: a contract data or code entry's liveUntilLedgerSeq, set (`liveUntilLedger`) or as
// ledgers from the edit's ledger (`extendTo`, as ExtendFootprintTTL counts), up or down.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { setTtl as setEntryTtl, type SetTtlResult } from '../../../standalone/stateEdits.ts';
import { parseKey, runEdit, xdrParam } from './shared/stateParams.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const setTtl: DevMethod = {
  name: 'lumen_setTtl',
  cli: { command: 'set-ttl', args: ['key', 'liveUntilLedger'] },
  paramsSchema: {
    type: 'object',
    properties: {
      key: xdrParam('the LedgerKey of a contract data or code entry: base64 XDR or its JSON form'),
      liveUntilLedger: { type: 'integer', minimum: 0, maximum: 0xffff_ffff },
      extendTo: { type: 'integer', minimum: 0, maximum: 0xffff_ffff, description: 'ledgers after the edit\'s ledger' },
    },
    required: ['key'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set a contract entry\'s TTL',
    result: { name: 'setTtlResult', schema: object({ ledger: ledgerSequence, liveUntilLedgerSeq: ledgerSequence, previous: ledgerSequence }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const key = parseKey(params.key);
    const until = params.liveUntilLedger as number | undefined;
    const extendTo = params.extendTo as number | undefined;
    if ((until === undefined) === (extendTo === undefined)) throw devRefused('give one of liveUntilLedger and extendTo');
    let result: SetTtlResult | undefined;
    const ledger = await runEdit(network, (ltx) => { result = setEntryTtl(ltx, key, until ?? ltx.ledgerSeq + extendTo!); });
    return { ledger, ...result! };
  },
};
