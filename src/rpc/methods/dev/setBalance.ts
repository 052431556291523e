// lumen_setBalance: an account's native balance in stroops, creating the account when missing (as
// Anvil's setBalance does); a balance below the account's reserve is refused.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { setNativeBalance } from '../../../standalone/stateEdits.ts';
import { amountParam, parseAccount, parseAmount, runEdit } from './shared/stateParams.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const setBalance: DevMethod = {
  name: 'lumen_setBalance',
  cli: { command: 'set-balance', args: ['account', 'balance'] },
  paramsSchema: {
    type: 'object',
    properties: {
      account: { type: 'string', description: 'G... address' },
      balance: amountParam('stroops'),
    },
    required: ['account', 'balance'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set an account\'s native balance (creating the account if missing)',
    result: { name: 'setBalanceResult', schema: object({ ledger: ledgerSequence, created: { type: 'boolean' } }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const account = parseAccount(params.account);
    const balance = parseAmount(params.balance, 'balance');
    let created = false;
    const ledger = await runEdit(network, (ltx, header) => { created = setNativeBalance(ltx, header, account, balance).created; });
    return { ledger, created };
  },
};
