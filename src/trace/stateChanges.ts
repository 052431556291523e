// An operation's state diff, from its meta: each entry it changed, before and after, and the frames
// that could have written it. A contract writes only its own storage, so a contract data entry
// belongs to the frames of its contract; balances (accounts, trustlines) to their asset's Stellar
// Asset Contract frames; a TTL entry to the owner of the entry it extends.
import { xdr } from '../xdr/xdr.ts';
import { toJson } from '../xdr/runtime/json.ts';
import { sha256, toBase64, type LedgerEntry, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { ledgerKeyOfChange } from '../xdr/ledgerKeys.ts';
import { keyXdrOf } from '../replay/initialState.ts';
import { assetContractId } from '../ledger/sacEvents.ts';
import type { StateChange, TraceFrame } from './types.ts';

interface Slot { key: LedgerKey; keyXdr: Uint8Array; before: LedgerEntry | null; after: LedgerEntry | null }

/** Each key's first and last state in one list of changes, in the order the keys first appear. */
function slotsOf(changes: readonly LedgerEntryChange[]): Slot[] {
  const slots = new Map<string, Slot>();
  for (const c of changes) {
    const key = ledgerKeyOfChange(c);
    const keyXdr = keyXdrOf(key);
    const id = toBase64(keyXdr);
    let slot = slots.get(id);
    if (!slot) { slot = { key, keyXdr, before: null, after: null }; slots.set(id, slot); }
    switch (c.type) {
      case 0: slot.after = c.created; break;
      case 1: slot.after = c.updated; break;
      case 2: slot.after = null; break;
      case 3: slot.before = c.state; slot.after = c.state; break;
      case 4: slot.after = c.restored; break;
    }
  }
  return [...slots.values()];
}

/** The contract (strkey) whose frames may have written `key`; undefined when no contract owns it. */
function ownerOf(key: LedgerKey, networkId: Uint8Array, byHash: ReadonlyMap<string, LedgerKey>): string | undefined {
  switch (key.type) {
    case 0: return addressText({ type: 1, contractId: assetContractId(networkId, { type: 0 }) });
    case 1: {
      const asset = key.trustLine.asset;
      return asset.type === 3 ? undefined : addressText({ type: 1, contractId: assetContractId(networkId, asset) });
    }
    case 6: return addressText(key.contractData.contract);
    case 9: {
      const owned = byHash.get(toBase64(key.ttl.keyHash));
      return owned ? ownerOf(owned, networkId, byHash) : undefined;
    }
    default: return undefined;
  }
}

export const addressText = (a: xdr.ScAddressWire): string => toJson(xdr.ScAddress.schema, a) as string;

/**
 * The state diff of `changes` (one operation's, from its meta). `frames`: the operation's frames,
 * for the attribution; a change no contract owns (contract code, an account a classic operation
 * changed) is attributed to the host-function root when there is one.
 */
export function stateChangesOf(changes: readonly LedgerEntryChange[], frames: readonly TraceFrame[], networkId: Uint8Array): StateChange[] {
  const slots = slotsOf(changes).filter((s) => !sameEntry(s.before, s.after));
  const byHash = new Map(slots.map((s) => [toBase64(sha256(s.keyXdr)), s.key] as const));
  return slots.map((s) => {
    const owner = ownerOf(s.key, networkId, byHash);
    const owning = frames.filter((f) => owner !== undefined && f.contract === owner).map((f) => f.id);
    const root = frames.find((f) => f.kind === 'host_function');
    return {
      key: toJson(xdr.LedgerKey.schema, s.key),
      before: s.before ? toJson(xdr.LedgerEntry.schema, s.before) : null,
      after: s.after ? toJson(xdr.LedgerEntry.schema, s.after) : null,
      frames: owning.length || !root ? owning : [root.id],
    };
  });
}

function sameEntry(a: LedgerEntry | null, b: LedgerEntry | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return Buffer.compare(xdr.LedgerEntry.schema.encode(a), xdr.LedgerEntry.schema.encode(b)) === 0;
}

