// lumen_impersonatedAccounts: the accounts impersonated now, in the order they were added.
import { object } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const impersonatedAccounts: DevMethod = {
  name: 'lumen_impersonatedAccounts',
  cli: { command: 'impersonated', args: [] },
  paramsSchema: { type: 'object', properties: {}, additionalProperties: false },
  doc: {
    summary: 'List the impersonated accounts',
    result: {
      name: 'impersonatedAccountsResult',
      schema: object({ accounts: { type: 'array', items: { type: 'string' }, description: 'G... addresses' } }),
    },
  },
  handler(_params, ctx) {
    return { accounts: devNetwork(ctx).impersonation.list() };
  },
};
