// lumen-rpc as a library (`import { startNetwork } from 'lumen-rpc'`): a standalone network inside
// the test process. The command line (bin/lumen-rpc.js) is the other way in.
export { startNetwork, NetworkRequestError } from './startNetwork.ts';
export type { Network, NetworkAccount, NetworkOptions, NetworkSnapshot } from './startNetwork.ts';
