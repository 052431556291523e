// The authorization trees a transaction carried: per signer, the invocations it authorized, each
// matched to the frames that consumed it (same contract, function and arguments).
import { xdr } from '../xdr/xdr.ts';
import { toJson } from '../xdr/runtime/json.ts';
import type { TraceAuth, TraceAuthNode, TraceFrame } from './types.ts';
import { addressText } from './stateChanges.ts';

const CREDENTIALS: Record<number, TraceAuth['credentials']> = { 0: 'source_account', 1: 'address', 2: 'address_v2', 3: 'address_with_delegates' };

function signerOf(c: xdr.SorobanCredentialsWire, source: string): string {
  switch (c.type) {
    case 0: return source;
    case 1: return addressText(c.address.address);
    case 2: return addressText(c.addressV2.address);
    case 3: return addressText(c.addressWithDelegates.addressCredentials.address);
  }
}

/** `source`: the operation's source account (strkey), the signer of source-account credentials. */
export function authTreesOf(entries: readonly xdr.SorobanAuthorizationEntryWire[], source: string, frames: readonly TraceFrame[]): TraceAuth[] {
  let nextId = 0;
  const claimed = new Set<number>();
  const node = (inv: xdr.SorobanAuthorizedInvocationWire): TraceAuthNode => {
    const id = nextId++;
    const fn = inv.function;
    let out: TraceAuthNode;
    if (fn.type === 0) {
      const contract = addressText(fn.contractFn.contractAddress);
      const args = fn.contractFn.args.map((a) => toJson(xdr.ScVal.schema, a));
      const text = JSON.stringify(args);
      const name = fn.contractFn.functionName.toString();
      // each authorized invocation is consumed once: the first frame that matches and is not taken
      const match = frames.find((f) => !claimed.has(f.id) && f.contract === contract && f.function === name && JSON.stringify(f.args) === text);
      if (match) { claimed.add(match.id); match.authorizedBy.push(id); }
      out = { id, contract, function: name, args, frames: match ? [match.id] : [], subInvocations: [] };
    } else {
      const root = frames.find((f) => f.kind === 'host_function');
      out = {
        id, function: fn.type === 1 ? 'CreateContract' : 'CreateContractV2',
        args: [fn.type === 1 ? toJson(xdr.CreateContractArgs.schema, fn.createContractHostFn) : toJson(xdr.CreateContractArgsV2.schema, fn.createContractV2HostFn)],
        frames: root ? [root.id] : [], subInvocations: [],
      };
      if (root) root.authorizedBy.push(id);
    }
    out.subInvocations = inv.subInvocations.map(node);
    return out;
  };
  return entries.map((e) => ({ address: signerOf(e.credentials, source), credentials: CREDENTIALS[e.credentials.type], root: node(e.rootInvocation) }));
}
