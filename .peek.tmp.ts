import { xdr } from '@stellar/stellar-sdk';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const nid = createHash('sha256').update('Public Global Stellar Network ; September 2015').digest();
const counts: Record<string, number> = {};
for (let L = 63092982; L <= 63092991; L++) {
  const raw = gunzipSync(readFileSync(`../shared/fixtures/pubnet/ledgers/ledger-${L}.xdr.gz`));
  const lcm: any = xdr.LedgerCloseMeta.schema.decode(new Uint8Array(raw));
  const envs: any[] = [];
  for (const ph of lcm.v2.txSet.v1TxSet.phases) {
    if (ph.v === 0) for (const c of ph.v0Components) envs.push(...c.txsMaybeDiscountedFee.txs);
    else for (const st of ph.parallelTxsComponent.executionStages) for (const cl of st) envs.push(...cl);
  }
  const byHash = new Map<string, any>();
  for (const e of envs) {
    let tagged: any;
    if (e.type === 2) tagged = { type: 2, tx: e.v1.tx };
    else if (e.type === 5) tagged = { type: 5, feeBump: e.feeBump.tx };
    else { continue; }
    const h = createHash('sha256').update(xdr.TransactionSignaturePayload.schema.encode({ networkId: nid, taggedTransaction: tagged } as any)).digest('hex');
    byHash.set(h, e);
  }
  for (const tp of lcm.v2.txProcessing) {
    const h = Buffer.from(tp.result.transactionHash).toString('hex');
    const e = byHash.get(h);
    if (!e) { counts['missing'] = (counts['missing'] ?? 0) + 1; continue; }
    const tx = e.type === 2 ? e.v1.tx : e.feeBump.tx.innerTx.v1.tx;
    const ops = tx.operations;
    const meta = tp.txApplyProcessing.v4;
    ops.forEach((op: any, i: number) => {
      const evs = meta.operations[i]?.events ?? [];
      const k = `op${op.body.type} memo${tx.memo.type} ev${evs.length} ` + evs.map((x: any) => (x.body.v0.topics[0]?.sym?.toString() ?? "?") + '/' + x.body.v0.data.type).join(',') + (op.body.type===1 && op.body.paymentOp.destination.type===256 ? ' MUXDEST':'') + (op.sourceAccount ? ' opsrc' + op.sourceAccount.type : '');
      counts[k] = (counts[k] ?? 0) + 1;
    });
  }
}
console.log(Object.entries(counts).sort().map(([k, v]) => `${v}\t${k}`).join('\n'));
