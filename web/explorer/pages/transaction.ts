// A transaction: what it did (its operations, their arguments and results, its events), what it
// cost, and how it ran: the call tree of lumen_traceTransaction when the node serves it, else the
// one its diagnostic events describe.
import type { TransactionTrace } from '../../../src/trace/types.ts';
import { errorBox, fill, h, note, overview, rawJson, section, table, type Child } from '../dom.ts';
import type { Page } from '../page.ts';
import { call, METHOD_NOT_FOUND, RpcError } from '../rpc.ts';
import { fromDiagnostics, frameElement, traceSection } from '../callTree.ts';
import {
  envelopeParts, operationResultCode, operationResults, resultCode,
} from '../transactions.ts';
import { address, args, arm, eventRow, ledgerLink, lumens, scv, tree, unixTime, words } from '../values.ts';

function memo(m: unknown): string | undefined {
  const [kind, value] = arm(m);
  if (kind === 'none' || kind === '') return undefined;
  return `${kind}: ${String(value)}`;
}

function timeBounds(cond: unknown): string | undefined {
  const [kind, value] = arm(cond);
  const time = kind === 'time' ? value : kind === 'v2' ? value?.time_bounds : undefined;
  if (!time) return kind === 'none' ? undefined : words(kind);
  return `${time.min_time === '0' ? 'any time' : unixTime(time.min_time)} to ${time.max_time === '0' ? 'no limit' : unixTime(time.max_time)}`;
}

/** The fields of an operation worth a line each; a contract call as contract.function(args). */
function operationBody(op: any): Child {
  const [type, body] = arm(op?.body);
  if (type === 'invoke_host_function') {
    const [fnType, fn] = arm(body.host_function);
    const auth = (body.auth ?? []) as unknown[];
    const what: Child = fnType === 'invoke_contract'
      ? h('p', { class: 'call' }, address(fn.contract_address), '.', h('span', { class: 'fn' }, fn.function_name), args(fn.args ?? []))
      : fnType === 'upload_contract_wasm'
        ? h('p', null, `upload contract wasm (${(String(fn).length / 2).toLocaleString('en-US')} bytes)`)
        : h('div', null, h('p', null, words(fnType)), tree(fn));
    return [what, auth.length > 0 ? h('details', { class: 'raw' }, h('summary', null, `authorization entries (${auth.length})`), tree(auth)) : ''];
  }
  return typeof body === 'object' && body !== null ? tree(body) : '';
}

function changeRows(changes: readonly any[]): Child[][] {
  return changes.map((c) => {
    const [kind, value] = arm(c);
    const data = kind === 'removed' ? value : value?.data;
    const [entryType] = arm(data);
    return [kind, words(entryType), tree(data)];
  });
}

async function loadTrace(hash: string): Promise<{ trace?: TransactionTrace; why?: string }> {
  try {
    return { trace: await call<TransactionTrace>('lumen_traceTransaction', { hash }) };
  } catch (e) {
    if (e instanceof RpcError && e.code === METHOD_NOT_FOUND) return { why: 'this node does not serve lumen_traceTransaction' };
    return { why: e instanceof Error ? e.message : String(e) };
  }
}

export async function transaction(page: Page, hash: string): Promise<void> {
  fill(page.el, h('h1', null, 'Transaction'), h('p', { class: 'mono' }, hash), h('p', null, 'Loading…'));
  if (!/^[0-9a-f]{64}$/i.test(hash)) { fill(page.el, h('h1', null, 'Transaction'), errorBox(`not a transaction hash: ${hash}`)); return; }
  const tracePromise = loadTrace(hash.toLowerCase());
  const t = await call('getTransaction', { hash: hash.toLowerCase(), xdrFormat: 'json' });
  if (!page.alive()) return;
  if (t.status === 'NOT_FOUND') {
    fill(page.el, h('h1', null, 'Transaction'), h('p', { class: 'mono' }, hash),
      note(`Not found in ledgers ${t.oldestLedger} to ${t.latestLedger}: not applied yet, or older than the history this node keeps.`));
    return;
  }
  const parts = envelopeParts(t.envelopeJson);
  const tx = parts.tx;
  const [extKind, ext] = arm(tx.ext);
  const soroban = extKind === 'v1' ? ext : undefined;
  const meta = arm(t.resultMetaJson)[1] ?? {};
  const sorobanMeta = meta.soroban_meta;
  const feeParts = arm(sorobanMeta?.ext)[1];
  const opResults = operationResults(t.resultJson);
  const opEvents: any[][] = t.events?.contractEventsJson ?? [];
  const ops: any[] = tx.operations ?? [];

  const traceBox = h('div', { id: 'trace' }, h('section', null, h('h2', null, 'Call tree'), h('p', null, 'Loading the trace…')));
  fill(page.el,
    h('h1', null, 'Transaction ', h('span', { class: `status ${String(t.status).toLowerCase()}` }, t.status)),
    h('p', { class: 'mono hash' }, t.txHash),
    overview([
      ['ledger', ledgerLink(t.ledger)],
      ['application order', String(t.applicationOrder)],
      ['closed at', unixTime(t.createdAt)],
      ['source', address(tx.source_account, true)],
      ['sequence', String(tx.seq_num)],
      ['fee bump', parts.feeBump ? h('span', null, 'paid by ', address(parts.feeBump.feeSource), `, up to ${parts.feeBump.fee} stroops`) : undefined],
      ['max fee', `${tx.fee} stroops`],
      ['fee charged', `${t.resultJson?.fee_charged} stroops (${lumens(t.resultJson?.fee_charged ?? 0)} XLM)`],
      ['resource fee', soroban ? `${soroban.resource_fee} stroops declared` + (feeParts
        ? `; charged: non-refundable ${feeParts.total_non_refundable_resource_fee_charged}, refundable ${feeParts.total_refundable_resource_fee_charged}, rent ${feeParts.rent_fee_charged}` : '') : undefined],
      ['resources', soroban ? `${Number(soroban.resources.instructions).toLocaleString('en-US')} instructions, ${soroban.resources.disk_read_bytes} bytes read from disk, ${soroban.resources.write_bytes} bytes written; footprint ${soroban.resources.footprint.read_only.length} read-only, ${soroban.resources.footprint.read_write.length} read-write` : undefined],
      ['result', resultCode(t.resultJson)],
      ['return value', sorobanMeta?.return_value !== undefined ? scv(sorobanMeta.return_value) : undefined],
      ['memo', memo(tx.memo)],
      ['valid', timeBounds(tx.cond)],
      ['signatures', String(parts.signatures.length + (parts.feeBump?.signatures.length ?? 0))],
    ]),
    section(`Operations (${ops.length})`, ops.map((op, i) => h('div', { class: 'operation' },
      h('h3', null, `${i}. ${words(arm(op.body)[0])}`, op.source_account ? [' from ', address(op.source_account)] : ''),
      operationBody(op),
      opResults[i] !== undefined ? h('p', null, 'result: ', h('span', { class: 'mono' }, operationResultCode(opResults[i]))) : '',
      (opEvents[i] ?? []).length > 0 ? [h('h4', null, 'Events'), table(['contract', 'type', 'topics', 'data'], opEvents[i].map(eventRow), { class: 'events' })] : '',
      (meta.operations?.[i]?.changes ?? []).length > 0
        ? h('details', { class: 'raw' }, h('summary', null, `ledger changes (${meta.operations[i].changes.length})`),
          table(['change', 'entry', 'value'], changeRows(meta.operations[i].changes), { class: 'changes' }))
        : ''))),
    traceBox,
    (t.events?.transactionEventsJson ?? []).length > 0 ? section('Transaction events', table(['stage', 'contract', 'type', 'topics', 'data'],
      t.events.transactionEventsJson.map((e: any) => [words(e.stage), ...eventRow(e.event)]), { class: 'events' })) : '',
    (t.diagnosticEventsJson ?? []).length > 0 ? h('details', { class: 'raw' }, h('summary', null, `diagnostic events (${t.diagnosticEventsJson.length})`),
      table(['contract', 'type', 'topics', 'data'], t.diagnosticEventsJson.map((d: any) => eventRow(d.event)), { class: 'events' })) : '',
    rawJson('Envelope (JSON)', t.envelopeJson),
    rawJson('Result (JSON)', t.resultJson),
    rawJson('Meta (JSON)', t.resultMetaJson),
  );

  const { trace, why } = await tracePromise;
  if (!page.alive()) return;
  if (trace) { fill(traceBox, traceSection(trace)); return; }
  const frames = fromDiagnostics(t.diagnosticEventsJson ?? []);
  fill(traceBox, frames.length > 0
    ? section('Call tree', note(`From the transaction's diagnostic events: calls, arguments, results and events, without costs, storage calls or state diffs (${why}).`),
      h('div', { class: 'call-tree' }, frames.map((f) => frameElement(f, true))))
    : '');
}
