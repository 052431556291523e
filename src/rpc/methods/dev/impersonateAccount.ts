// lumen_impersonateAccount: transactions need no signature of this account any more (as source,
// operation source or fee-bump fee source), and its Soroban authorizations need no signed auth
// entry, in apply and in simulation. Everything else is validated as usual.
import { object } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';
import { accountParamsSchema, impersonationTarget } from './impersonation.ts';

export const impersonateAccount: DevMethod = {
  name: 'lumen_impersonateAccount',
  cli: { command: 'impersonate', args: ['account'] },
  paramsSchema: accountParamsSchema,
  doc: {
    summary: 'Act as an account without its keys: its signatures and Soroban auth signatures are no longer needed',
    result: {
      name: 'impersonateAccountResult',
      schema: object({
        account: { type: 'string', description: 'the account (G...)' },
        added: { type: 'boolean', description: 'false when it was already impersonated' },
        accounts: { type: 'array', items: { type: 'string' }, description: 'every impersonated account now' },
      }),
    },
  },
  handler(params, ctx) {
    const network = devNetwork(ctx);
    const key = impersonationTarget(params.account as string);
    const added = network.impersonation.add(key);
    const accounts = network.impersonation.list();
    return { account: (params.account as string).trim(), added, accounts };
  },
};
