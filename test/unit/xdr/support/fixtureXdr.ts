// Every XDR value in test/fixtures, with its type: ledgers (raw, in datastore batches, in record-marked
// streams, in history archives) and the base64 fields of captured RPC answers.
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';

const FIXTURES = new URL('../../../fixtures/', import.meta.url);

export interface FixtureXdr {
  /** Where it came from, for failure messages. */
  source: string;
  /** The generated module's (and the SDK's) type name. */
  type: string;
  bytes: Uint8Array;
}

const read = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, FIXTURES)));
const files = (dir: string, suffix: string): string[] =>
  readdirSync(new URL(dir, FIXTURES)).filter((f) => f.endsWith(suffix)).sort().map((f) => `${dir}${f}`);

/** The records of a record-marked stream (RFC 5531 framing, as stellar-core writes meta and archives). */
function records(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let o = 0; o < bytes.length;) {
    const length = view.getUint32(o) & 0x7fffffff;
    out.push(bytes.subarray(o + 4, o + 4 + length));
    o += 4 + length;
  }
  return out;
}

/** XDR types of the base64 fields of captured answers, by field name. */
const FIELD_TYPES: Readonly<Record<string, string>> = {
  envelopeXdr: 'TransactionEnvelope', resultXdr: 'TransactionResult', resultMetaXdr: 'TransactionMeta',
  diagnosticEventsXdr: 'DiagnosticEvent', transactionEventsXdr: 'TransactionEvent', contractEventsXdr: 'ContractEvent',
  topic: 'ScVal', value: 'ScVal', xdr: 'ScVal', auth: 'SorobanAuthorizationEntry',
  transactionData: 'SorobanTransactionData', events: 'DiagnosticEvent', key: 'LedgerKey', before: 'LedgerEntry', after: 'LedgerEntry',
  headerXdr: 'LedgerHeaderHistoryEntry', metadataXdr: 'LedgerCloseMeta',
};

function* base64Fields(json: unknown, source: string, field = ''): Generator<FixtureXdr> {
  if (Array.isArray(json)) for (const v of json) yield* base64Fields(v, source, field);
  else if (json !== null && typeof json === 'object') for (const [k, v] of Object.entries(json)) yield* base64Fields(v, source, k);
  else if (typeof json === 'string' && FIELD_TYPES[field]) yield { source: `${source} ${field}`, type: FIELD_TYPES[field], bytes: new Uint8Array(Buffer.from(json, 'base64')) };
}

/**
 * The standalone network's own ledgers of every protocol it writes (standalone/upgrade, 28 -> 29 -> 30):
 * not in fixtureXdr, since SDK 17.2 (which the tests using that one compare with) cannot read P30.
 */
export function* standaloneFixtureXdr(): Generator<FixtureXdr> {
  for (const f of files('standalone/upgrade/', '.xdr.zst')) {
    yield { source: f, type: 'LedgerCloseMetaBatch', bytes: new Uint8Array(zstdDecompressSync(read(f))) };
  }
}

export function* fixtureXdr(): Generator<FixtureXdr> {
  for (const f of files('pubnet/ledgers/', '.xdr.gz')) yield { source: f, type: 'LedgerCloseMeta', bytes: new Uint8Array(gunzipSync(read(f))) };
  yield { source: 'pubnet/datastore/FC62697B--60659332.xdr', type: 'LedgerCloseMetaBatch', bytes: read('pubnet/datastore/FC62697B--60659332.xdr') };
  for (const f of ['pubnet/datastore/FCD285FF--53312000.xdr.zstd', ...files('testnet/datastore-p20/', '.xdr.zst'), ...files('testnet/datastore-p25/', '.xdr.zst')]) {
    yield { source: f, type: 'LedgerCloseMetaBatch', bytes: new Uint8Array(zstdDecompressSync(read(f))) };
  }
  for (const f of files('synthetic/', '.xdr.zstd')) {
    for (const [i, r] of records(new Uint8Array(zstdDecompressSync(read(f)))).entries()) yield { source: `${f} #${i}`, type: 'LedgerCloseMeta', bytes: r };
  }
  const archive: Readonly<Record<string, string>> = {
    ledger: 'LedgerHeaderHistoryEntry', transactions: 'TransactionHistoryEntry', results: 'TransactionHistoryResultEntry', bucket: 'BucketEntry',
  };
  for (const f of files('pubnet/history-archive/', '.xdr.gz')) {
    const type = archive[/([a-z]+)-[0-9a-f]+\.xdr\.gz$/.exec(f)![1]];
    for (const [i, r] of records(new Uint8Array(gunzipSync(read(f)))).entries()) yield { source: `${f} #${i}`, type, bytes: r };
  }
  // rs-event_response.json is a client library's parser fixture: its topic/value strings are not valid ScVal XDR
  const answers = files('rpc-responses/', '.json').filter((f) => !f.endsWith('/rs-event_response.json'));
  for (const f of [...answers, ...files('testnet/getLedgers-p22/', '.json')]) {
    yield* base64Fields(JSON.parse(Buffer.from(read(f)).toString('utf8')), f);
  }
}
