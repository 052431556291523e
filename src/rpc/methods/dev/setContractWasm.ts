// lumen_setContractWasm: replaces a contract's code, keeping its instance storage and all its other
// entries; the code entry is written when the network does not have it.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { toHex } from '../../../xdr/codec.ts';
import { setContractWasm as setWasm, type SetWasmResult } from '../../../standalone/stateEdits.ts';
import { parseContract, runEdit } from './shared/stateParams.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' };

export const setContractWasm: DevMethod = {
  name: 'lumen_setContractWasm',
  cli: { command: 'set-contract-wasm', args: ['contract', 'wasm'] },
  paramsSchema: {
    type: 'object',
    properties: {
      contract: { type: 'string', description: 'C... address of a Wasm contract' },
      wasm: { type: 'string', description: 'the new code, base64' },
    },
    required: ['contract', 'wasm'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Replace a contract\'s Wasm, keeping its storage',
    result: {
      name: 'setContractWasmResult',
      schema: object({ ledger: ledgerSequence, wasmHash: hash, previousWasmHash: hash, uploaded: { type: 'boolean', description: 'the code entry was written' } }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const contractId = parseContract(params.contract);
    const text = String(params.wasm).replace(/\s/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw devRefused('wasm is not base64');
    const wasm = new Uint8Array(Buffer.from(text, 'base64'));
    let result: SetWasmResult | undefined;
    const ledger = await runEdit(network, (ltx) => { result = setWasm(ltx, contractId, String(params.contract), wasm); });
    return { ledger, wasmHash: toHex(result!.wasmHash), previousWasmHash: toHex(result!.previousWasmHash), uploaded: result!.uploaded };
  },
};
