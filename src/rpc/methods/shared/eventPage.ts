// Stored events as getEvents and queryEvents serve them: a page filled from the event index a
// chunk at a time in the query's order, each event rendered as one EventInfo.
import { StrKey } from '@stellar/stellar-sdk';
import { ErrorCode, RpcError } from '../../errors.ts';
import type { EventQuery, StoreReader, StoredEvent } from '../../../store/types.ts';
import type { EventPosition } from '../../../events/types.ts';
import { CONTRACT_EVENT_TYPE_NAMES, parseContractEvent } from '../../../events/eventBytes.ts';
import { comparePositions, formatEventId } from '../../../events/eventIds.ts';
import { toBase64, toHex } from '../../../xdr/codec.ts';
import type { Page } from './page.ts';
import type { XdrFormat } from './xdrFormat.ts';
import { xdrJsonText } from '../../xdrJson.ts';
import { contractIdOrEmpty, hexHash, ledgerSequence, object, uint32, xdrList, xdrValue } from './schemas.ts';
import type { JsonSchema } from '../types.ts';

/** The most ledgers one request scans (the reference's LedgerScanLimit; queryEvents' too). */
export const LEDGER_SCAN_LIMIT = 10_000;

/** Events read from storage at a time. */
const READ_CHUNK = 100;

/** The position before every event of a ledger. */
export const ledgerStart = (ledger: number): EventPosition => ({ ledger, tx: 0, op: 0, event: 0 });
export const positionOf = (e: StoredEvent): EventPosition => ({ ledger: e.ledger, tx: e.tx, op: e.op, event: e.index });

/** Go's time.Unix(t, 0).UTC().Format(time.RFC3339). */
function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const EVENT_ID: JsonSchema = { type: 'string', pattern: '^\\d{19}-\\d{10}$' };

/** The schema of one EventInfo as EventRenderer writes it (rpc.discover). */
export function eventInfoSchema(): JsonSchema {
  return object({
    type: { type: 'string', enum: ['contract', 'system'] },
    ledger: ledgerSequence,
    ledgerClosedAt: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$', description: 'RFC 3339, UTC' },
    contractId: contractIdOrEmpty,
    id: EVENT_ID,
    pagingToken: { ...EVENT_ID, description: 'lumen-rpc extension: the event id again, for older clients' },
    operationIndex: uint32,
    transactionIndex: uint32,
    txHash: hexHash,
    topic: xdrList('ScVal', 'topicJson'),
    value: xdrValue('ScVal', 'valueJson'),
  });
}

/** Renders stored events as EventInfo JSON; remembers the strkeys of the contract ids it met. */
export class EventRenderer {
  private readonly contractIds = new Map<string, string>();
  private readonly format: XdrFormat;

  // No `inSuccessfulContractCall`: stellar-rpc v30.0.0 dropped it (#1050), deprecated since protocol 23,
  // where only successful calls emit contract events.
  constructor(format: XdrFormat) {
    this.format = format;
  }

  /** One EventInfo, fields in the reference's order; `pagingToken` repeats the id for older clients. */
  render(e: StoredEvent): string {
    const parsed = parseContractEvent(e.event);
    const type = CONTRACT_EVENT_TYPE_NAMES[parsed.type];
    if (type === undefined) {
      throw new RpcError(ErrorCode.systemError, `could not parse event: unknown XDR ContractEventType type: ${parsed.type}`);
    }
    let contractId = '';
    if (parsed.contractId) {
      const key = toHex(parsed.contractId);
      contractId = this.contractIds.get(key) ?? StrKey.encodeContract(Buffer.from(parsed.contractId));
      this.contractIds.set(key, contractId);
    }
    const id = formatEventId(positionOf(e));
    const info: Record<string, unknown> = {
      type,
      ledger: e.ledger,
      ledgerClosedAt: rfc3339(e.closeTime),
      contractId,
      id,
      pagingToken: id,
      operationIndex: e.op,
      transactionIndex: e.tx,
      txHash: toHex(e.txHash),
    };
    // `topic` is always present (the reference omits an empty list; Python's client requires it).
    if (this.format === 'json') {
      // the JSON comes as text, spliced in after the other members (the last ones in the reference's order)
      const topics = parsed.topics.map((t) => xdrJsonText('ScVal', t)).join(',');
      return `${JSON.stringify(info).slice(0, -1)},"topicJson":[${topics}],"valueJson":${xdrJsonText('ScVal', parsed.value)}}`;
    }
    info.topic = parsed.topics.map(toBase64);
    info.value = toBase64(parsed.value);
    return JSON.stringify(info);
  }
}

/**
 * Fills `page` with the events of `query` (its limit is the page's), reading a chunk at a time, each
 * chunk right after the last event read in the query's order. Returns the last event added.
 */
export function fillEventPage(store: StoreReader, page: Page, query: EventQuery, renderer: EventRenderer): Promise<StoredEvent | undefined> {
  const chunk: EventQuery = { ...query };
  const read = (n: number): StoredEvent[] => {
    if (comparePositions(chunk.start, chunk.end) >= 0) return [];
    const found = store.events({ ...chunk, limit: n });
    if (found.length > 0) {
      const at = positionOf(found[found.length - 1]);
      if (query.descending) chunk.end = at;
      else chunk.start = { ...at, event: at.event + 1 };
    }
    return found;
  };
  return page.fill(READ_CHUNK, read, (e) => renderer.render(e));
}
