// lumen_setContractData: one contract data entry (ScVal key and value, base64 XDR or JSON) of an
// existing contract; a new entry gets the network's minimum TTL for its durability.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { encodeLedgerKey, toBase64 } from '../../../xdr/codec.ts';
import { contractDataKey, setContractData as setData, type SetDataResult } from '../../../standalone/stateEdits.ts';
import { parseContract, parseDurability, parseScVal, runEdit, xdrParam } from './shared/stateParams.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const setContractData: DevMethod = {
  name: 'lumen_setContractData',
  cli: { command: 'set-contract-data', args: ['contract', 'key', 'value', 'durability'] },
  paramsSchema: {
    type: 'object',
    properties: {
      contract: { type: 'string', description: 'C... address' },
      key: xdrParam('ScVal: base64 XDR or its JSON form'),
      value: xdrParam('ScVal: base64 XDR or its JSON form'),
      durability: { type: 'string', enum: ['persistent', 'temporary'], description: 'default persistent' },
    },
    required: ['contract', 'key', 'value'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set a contract data entry',
    result: {
      name: 'setContractDataResult',
      schema: object({
        ledger: ledgerSequence, key: { type: 'string', description: 'the entry\'s LedgerKey (base64 XDR)' }, created: { type: 'boolean' },
        liveUntilLedgerSeq: ledgerSequence,
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const contractId = parseContract(params.contract);
    const key = parseScVal(params.key, 'key');
    const value = parseScVal(params.value, 'value');
    const durability = parseDurability(params.durability);
    let result: SetDataResult | undefined;
    const ledger = await runEdit(network, (ltx) => { result = setData(ltx, contractId, String(params.contract), key, value, durability); });
    return { ledger, key: toBase64(encodeLedgerKey(contractDataKey(contractId, key, durability))), ...result! };
  },
};
