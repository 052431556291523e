import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { rootSigner } from '../../../src/ledger/rootAccount.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';

it('derives the standalone root account from the network id, and its signatures verify', () => {
  const signer = rootSigner(networkIdOf('Standalone Network ; February 2017'));
  const address = StrKey.encodeEd25519PublicKey(Buffer.from(signer.publicKey));
  assert.equal(address, 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI');
  const message = new Uint8Array(32).fill(7);
  assert.ok(Keypair.fromPublicKey(address).verify(Buffer.from(message), Buffer.from(signer.sign(message))));
  assert.deepEqual(signer.hint, signer.publicKey.subarray(28));
});
