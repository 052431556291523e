// lumen_setTrustlineBalance: an account's balance of a credit asset; a missing trustline is created
// authorized with the largest limit, and a balance above the limit raises the limit.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { setTrustlineBalance as setLine } from '../../../standalone/stateEdits.ts';
import { amountParam, parseAccount, parseAmount, parseAsset, runEdit } from './shared/stateParams.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const setTrustlineBalance: DevMethod = {
  name: 'lumen_setTrustlineBalance',
  cli: { command: 'set-trustline-balance', args: ['account', 'asset', 'balance'] },
  paramsSchema: {
    type: 'object',
    properties: {
      account: { type: 'string', description: 'G... address' },
      asset: { type: 'string', description: 'CODE:ISSUER' },
      balance: amountParam('stroops of the asset'),
    },
    required: ['account', 'asset', 'balance'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set an account\'s trustline balance (creating an authorized trustline if missing)',
    result: {
      name: 'setTrustlineBalanceResult',
      schema: object({ ledger: ledgerSequence, created: { type: 'boolean' }, limit: { type: 'string', description: 'the trustline\'s limit afterwards' } }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const account = parseAccount(params.account);
    const asset = parseAsset(params.asset);
    if (asset.type === 0) throw devRefused('the native asset has no trustline: use lumen_setBalance');
    const balance = parseAmount(params.balance, 'balance');
    let result = { created: false, limit: 0n };
    const ledger = await runEdit(network, (ltx, header) => { result = setLine(ltx, header, account, asset, balance); });
    return { ledger, created: result.created, limit: result.limit.toString() };
  },
};
