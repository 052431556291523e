// The explorer's parts that need no browser: the page's own strkey and LedgerKey encoders (it has no
// XDR library) against the official JS SDK's, its search box's routes, and the server side's files
// (types, caching, gzip) read from a folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Address, Asset, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { contractFromHex, decodeStrkey, encodeStrkey, isAccount, isContract, muxedBase } from '../../../web/explorer/strkey.ts';
import { accountKey, contractCodeKey, contractInstanceKey, trustlineKey } from '../../../web/explorer/ledgerKeys.ts';
import { searchRoute } from '../../../web/explorer/search.ts';
import { acceptsGzip, loadExplorerFiles } from '../../../src/explorer/routes.ts';

const account = Keypair.random().publicKey();
const issuer = Keypair.random().publicKey();
const contractBytes = Buffer.alloc(32, 7);
const contract = StrKey.encodeContract(contractBytes);
const muxed = StrKey.encodeMed25519PublicKey(Buffer.concat([StrKey.decodeEd25519PublicKey(account), Buffer.from([0, 0, 0, 0, 0, 0, 0, 42])]));

describe('strkeys', () => {
  it('decode and encode as the SDK does', () => {
    assert.deepEqual(Buffer.from(decodeStrkey('account', account)!), Buffer.from(StrKey.decodeEd25519PublicKey(account)));
    assert.equal(encodeStrkey('account', StrKey.decodeEd25519PublicKey(account)), account);
    assert.equal(encodeStrkey('contract', contractBytes), contract);
    assert.equal(contractFromHex(contractBytes.toString('hex')), contract);
    assert.equal(muxedBase(muxed), account);
    assert.ok(isAccount(account) && isContract(contract) && !isAccount(contract) && !isContract(account));
  });

  it('refuse a wrong checksum, a wrong kind, a wrong length', () => {
    const flipped = account.slice(0, 55) + (account[55] === 'A' ? 'B' : 'A');
    assert.equal(isAccount(flipped), false);
    assert.equal(isAccount(account.slice(1)), false);
    assert.equal(decodeStrkey('muxed', account), undefined);
    assert.equal(isAccount(account.toLowerCase()), false);
  });
});

describe('ledger keys', () => {
  const sdkKey = (wire: unknown) => xdr.LedgerKey.fromXdrObject(wire as xdr.LedgerKeyWire).toXdr('base64');
  const accountId = (g: string) => ({ type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) });

  it('an account', () => {
    assert.equal(accountKey(account), sdkKey({ type: 0, account: { accountId: accountId(account) } }));
  });

  it('a trustline to a 4- and a 12-character asset', () => {
    for (const code of ['USD', 'LONGERCODE12']) {
      const asset = new Asset(code, issuer).toTrustLineXDRObject().toXdrObject();
      assert.equal(trustlineKey(account, code, issuer), sdkKey({ type: 1, trustLine: { accountId: accountId(account), asset } }), code);
    }
  });

  it('a contract instance and a contract code', () => {
    const instance = xdr.LedgerKey.fromXdrObject({
      type: 6,
      contractData: { contract: Address.fromString(contract).toScAddress().toXdrObject(), key: { type: 20 }, durability: 1 },
    } as xdr.LedgerKeyWire).toXdr('base64');
    assert.equal(contractInstanceKey(contract), instance);
    const hash = Buffer.alloc(32, 9);
    assert.equal(contractCodeKey(hash.toString('hex')), sdkKey({ type: 7, contractCode: { hash } }));
  });
});

it('the page never parses anything as HTML: no innerHTML or its kin anywhere in its code', () => {
  const dir = new URL('../../../web/explorer/', import.meta.url);
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 10 && files.includes('dom.ts'), files.join(', '));
  const parsing = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|srcdoc)\b/;
  const found = files.filter((f) => parsing.test(readFileSync(new URL(f, dir), 'utf8').replace(/\/\/.*$/gm, '')));
  assert.deepEqual(found, []);
});

it('the search box: ledger numbers, hashes, accounts (muxed too), contracts; anything else is nothing', () => {
  assert.equal(searchRoute(' 42 '), 'ledger/42');
  assert.equal(searchRoute('A'.repeat(64)), `tx/${'a'.repeat(64)}`);
  assert.equal(searchRoute(account.toLowerCase()), `account/${account}`);
  assert.equal(searchRoute(muxed), `account/${muxed}`);
  assert.equal(searchRoute(contract), `contract/${contract}`);
  for (const nothing of ['', '0', '4294967296', 'abc', account.slice(1), `${'a'.repeat(63)}g`]) assert.equal(searchRoute(nothing), undefined, nothing);
});

describe('the served files', () => {
  it('gzip: taken unless refused with q=0', () => {
    assert.equal(acceptsGzip(undefined), false);
    assert.equal(acceptsGzip('gzip, deflate, br'), true);
    assert.equal(acceptsGzip('br;q=1, gzip;q=0.5'), true);
    assert.equal(acceptsGzip('gzip;q=0'), false);
    assert.equal(acceptsGzip('*'), true);
    assert.equal(acceptsGzip('identity'), false);
  });

  it('types and caching by name: the page revalidated, hashed files immutable; big ones also gzipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-explorer-files-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
      const script = `console.log(${JSON.stringify('x'.repeat(5000))});`;
      writeFileSync(join(dir, 'explorer-ABCD1234.js'), script);
      writeFileSync(join(dir, 'explorer-ABCD1234.css'), 'body{}');
      writeFileSync(join(dir, 'notes.txt'), 'not served');
      const files = loadExplorerFiles(dir)!;
      assert.deepEqual([...files.keys()].sort(), ['explorer-ABCD1234.css', 'explorer-ABCD1234.js', 'index.html']);
      assert.equal(files.get('index.html')!.cacheControl, 'no-cache');
      assert.equal(files.get('index.html')!.contentType, 'text/html; charset=utf-8');
      assert.equal(files.get('index.html')!.gzip, undefined);
      const js = files.get('explorer-ABCD1234.js')!;
      assert.equal(js.cacheControl, 'public, max-age=31536000, immutable');
      assert.equal(js.contentType, 'text/javascript; charset=utf-8');
      assert.equal(gunzipSync(js.gzip!).toString(), script);
      assert.match(js.etag, /^"[A-Za-z0-9_-]{27}"$/);
      assert.equal(loadExplorerFiles(join(dir, 'missing')), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
