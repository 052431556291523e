// lumen_setSacBalance: an address's balance of an asset's Stellar Asset Contract: the SAC's Balance
// entry for a contract (C...), the native balance or trustline for an account (G...).
import { StrKey } from '@stellar/stellar-sdk';
import { object, ledgerSequence, optional } from '../shared/schemas.ts';
import { setSacBalance as setBalance, type SetSacBalanceResult } from '../../../standalone/stateEdits.ts';
import { assetContractId } from '../../../ledger/sacEvents.ts';
import { bytesEqual } from '../../../xdr/codec.ts';
import { amountParam, parseAddress, parseAmount, parseAsset, parseContract, runEdit } from './shared/stateParams.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const setSacBalance: DevMethod = {
  name: 'lumen_setSacBalance',
  cli: { command: 'set-sac-balance', args: ['asset', 'address', 'amount'] },
  paramsSchema: {
    type: 'object',
    properties: {
      contract: { type: 'string', description: 'the SAC\'s C... address (optional; checked against the asset\'s)' },
      asset: { type: 'string', description: '"native" or CODE:ISSUER' },
      address: { type: 'string', description: 'the holder: C... (the SAC Balance entry) or G... (native balance or trustline)' },
      amount: amountParam('in the asset\'s stroops (i128 for a contract holder)'),
    },
    required: ['asset', 'address', 'amount'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set an address\'s balance in an asset\'s Stellar Asset Contract',
    result: {
      name: 'setSacBalanceResult',
      schema: object({
        ledger: ledgerSequence, contract: { type: 'string', description: 'the SAC (C...)' }, created: { type: 'boolean' },
        liveUntilLedgerSeq: optional(ledgerSequence),
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const asset = parseAsset(params.asset);
    const sacId = assetContractId(network.networkId, asset);
    if (params.contract !== undefined && !bytesEqual(parseContract(params.contract), sacId)) {
      throw devRefused(`${String(params.contract)} is not the Stellar Asset Contract of ${String(params.asset)} (${StrKey.encodeContract(Buffer.from(sacId))})`);
    }
    const holder = parseAddress(params.address);
    const amount = parseAmount(params.amount, 'amount');
    let result: SetSacBalanceResult | undefined;
    const ledger = await runEdit(network, (ltx, header) => { result = setBalance(ltx, header, network.networkId, asset, holder, amount); });
    return {
      ledger, contract: StrKey.encodeContract(Buffer.from(sacId)), created: result!.created,
      ...(result!.liveUntilLedgerSeq !== undefined ? { liveUntilLedgerSeq: result!.liveUntilLedgerSeq } : {}),
    };
  },
};
