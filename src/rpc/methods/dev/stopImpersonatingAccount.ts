// lumen_stopImpersonatingAccount: the account's signatures are needed again, from the next
// validation on (queued transactions that relied on impersonation fail when applied).
import { object } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';
import { accountParamsSchema, impersonationTarget } from './impersonation.ts';

export const stopImpersonatingAccount: DevMethod = {
  name: 'lumen_stopImpersonatingAccount',
  cli: { command: 'stop-impersonating', args: ['account'] },
  paramsSchema: accountParamsSchema,
  doc: {
    summary: 'Stop impersonating an account: its signatures are required again',
    result: {
      name: 'stopImpersonatingAccountResult',
      schema: object({
        account: { type: 'string', description: 'the account (G...)' },
        removed: { type: 'boolean', description: 'false when it was not impersonated' },
        accounts: { type: 'array', items: { type: 'string' }, description: 'every impersonated account now' },
      }),
    },
  },
  handler(params, ctx) {
    const network = devNetwork(ctx);
    const account = (params.account as string).trim();
    const removed = network.impersonation.remove(impersonationTarget(account));
    return { account, removed, accounts: network.impersonation.list() };
  },
};
