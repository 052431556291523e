//! src/ingest/ledgerToBatch.ts in Rust: one LedgerCloseMeta (any version) into the rows storage
//! keeps for it. The JS version spends ~300 ms on a busy pubnet ledger, mostly decoding and
//! re-encoding XDR; a node following the network needs a few tens of milliseconds at most.
//!
//! Crossing into JS costs per value, so the rows travel packed (see `LedgerRows`): every byte field
//! back to back in one buffer, and the row structure as u32 words indexing it. The wrapper in
//! src/ingest/nativeLedgerToBatch.ts unpacks them into the same IngestBatch the JS version builds;
//! the two layouts must change together.

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use napi::bindgen_prelude::{BigInt64Array, Buffer, Uint32Array};
use napi_derive::napi;
use sha2::{Digest, Sha256};
use stellar_xdr::{
    ContractDataDurability, EnvelopeType, FeeBumpTransactionInnerTx, GeneralizedTransactionSet, LedgerCloseMeta, LedgerEntry,
    LedgerEntryChange, LedgerHeaderHistoryEntry, LedgerKey, Limited, Limits, MuxedAccount, Operation,
    OperationBody, Preconditions, ReadXdr, SorobanTransactionMetaExt, Transaction, TransactionEnvelope,
    TransactionExt, TransactionMeta, TransactionPhase, TransactionResult, TransactionResultMeta,
    TransactionResultMetaV1, TransactionResultPair, TransactionResultResult, TransactionV0, TxSetComponent,
    UpgradeEntryMeta, WriteXdr,
};

/// Nesting allowed while decoding: what the Soroban host allows for XDR (contract values nest at
/// most ~100 deep), and small enough that garbage input cannot exhaust the stack.
pub const MAX_XDR_DEPTH: u32 = 500;

/// Marks an absent span (a transaction without inner hash, a deleted entry).
pub const NONE: u32 = u32::MAX;

/// u32 words per transaction in `LedgerRows::transactions`: hash offset (32 bytes), inner hash
/// offset or NONE, flags (bit 0 successful, bit 1 fee bump), then offset and length of the
/// envelope, the result and the meta.
pub const TX_WORDS: usize = 9;
const TX_SUCCESSFUL: u32 = 1;
const TX_FEE_BUMP: u32 = 2;

/// u32 words per entry write in `LedgerRows::entryWrites`: key offset and length, entry offset
/// (NONE when deleted) and length, lastModified; then the version the ledger replaced (the entry
/// history keeps it): its offset and length and lastModified, or offset NONE with length
/// BEFORE_ABSENT (the ledger created the key) or BEFORE_UNKNOWN (the meta does not say: the store
/// reads it).
pub const ENTRY_WORDS: usize = 8;
pub const BEFORE_ABSENT: u32 = 0;
pub const BEFORE_UNKNOWN: u32 = 1;

/// What ledgerToRows returns: the rows of src/store/types.ts's IngestBatch, packed.
#[napi(object)]
pub struct LedgerRows {
    pub sequence: u32,
    /// Unix seconds (as JS's Number(closeTime)).
    pub close_time: f64,
    pub protocol_version: u32,
    /// Every byte field, back to back; the offsets below point into it.
    pub bytes: Buffer,
    /// Offset and length of the ledger hash, then of the LedgerHeaderHistoryEntry XDR.
    pub ledger: Uint32Array,
    /// TX_WORDS words per transaction, in application order.
    pub transactions: Uint32Array,
    /// Per transaction: the number of transaction events, the number of per-operation contract
    /// event lists followed by each list's length, the number of diagnostic events. `events`
    /// holds them in that order.
    pub event_counts: Uint32Array,
    /// TransactionEvent, ContractEvent and DiagnosticEvent XDR, base64.
    pub events: Vec<String>,
    /// ENTRY_WORDS words per ledger entry the ledger touched (in no particular order).
    pub entry_writes: Uint32Array,
    /// LedgerCloseMetaV2.totalByteSizeOfLiveSorobanState (absent before V2): the average of the
    /// state-size window as this ledger leaves it. Exact as a number (far below 2^53).
    pub live_soroban_state_size: Option<f64>,
    /// One fee sample per transaction that has one, in application order...
    pub fees: BigInt64Array,
    /// ...and whether each is a Soroban one (1) or a classic one (0).
    pub fee_soroban: Uint32Array,
}

/// The rows, in plain Rust (built off the JS thread).
pub struct Rows {
    sequence: u32,
    close_time: u64,
    protocol_version: u32,
    bytes: Vec<u8>,
    ledger: Vec<u32>,
    transactions: Vec<u32>,
    event_counts: Vec<u32>,
    events: Vec<String>,
    entry_writes: Vec<u32>,
    live_soroban_state_size: Option<u64>,
    fees: Vec<i64>,
    fee_soroban: Vec<u32>,
}

impl From<Rows> for LedgerRows {
    fn from(r: Rows) -> Self {
        LedgerRows {
            sequence: r.sequence,
            close_time: r.close_time as f64,
            protocol_version: r.protocol_version,
            bytes: Buffer::from(r.bytes),
            ledger: Uint32Array::new(r.ledger),
            transactions: Uint32Array::new(r.transactions),
            event_counts: Uint32Array::new(r.event_counts),
            events: r.events,
            entry_writes: Uint32Array::new(r.entry_writes),
            live_soroban_state_size: r.live_soroban_state_size.map(|n| n as f64),
            fees: BigInt64Array::new(r.fees),
            fee_soroban: Uint32Array::new(r.fee_soroban),
        }
    }
}

type Res<T> = Result<T, String>;

fn xdr_error(what: &str, e: stellar_xdr::Error) -> String {
    format!("{what}: {e}")
}

// ---------------------------------------------------------------------------------------------
// The byte buffer

#[derive(Clone, Copy)]
struct Span {
    offset: u32,
    len: u32,
}

/// The one buffer every byte field is written into.
struct Blob(Vec<u8>);

impl Blob {
    fn span_from(&self, start: usize) -> Res<Span> {
        let end = u32::try_from(self.0.len()).map_err(|_| "ledger rows exceed 4 GiB".to_string())?;
        Ok(Span { offset: start as u32, len: end - start as u32 })
    }

    fn append(&mut self, bytes: &[u8]) -> Res<Span> {
        let start = self.0.len();
        self.0.extend_from_slice(bytes);
        self.span_from(start)
    }

    fn append_xdr(&mut self, value: &impl WriteXdr) -> Res<Span> {
        let start = self.0.len();
        value
            .write_xdr(&mut Limited::new(&mut self.0, Limits::none()))
            .map_err(|e| xdr_error("encoding", e))?;
        self.span_from(start)
    }
}

// ---------------------------------------------------------------------------------------------
// The LedgerCloseMeta's parts, whatever its version

/// A txProcessing element: V0/V1 metas carry TransactionResultMeta, V2 the V1 form with the
/// post-apply fee changes.
enum Processing<'a> {
    V0(&'a TransactionResultMeta),
    V1(&'a TransactionResultMetaV1),
}

impl<'a> Processing<'a> {
    fn result(&self) -> &'a TransactionResultPair {
        match self {
            Processing::V0(p) => &p.result,
            Processing::V1(p) => &p.result,
        }
    }
    fn fee_processing(&self) -> &'a [LedgerEntryChange] {
        match self {
            Processing::V0(p) => &p.fee_processing.0,
            Processing::V1(p) => &p.fee_processing.0,
        }
    }
    fn meta(&self) -> &'a TransactionMeta {
        match self {
            Processing::V0(p) => &p.tx_apply_processing,
            Processing::V1(p) => &p.tx_apply_processing,
        }
    }
    fn post_apply_fee_processing(&self) -> &'a [LedgerEntryChange] {
        match self {
            Processing::V0(_) => &[],
            Processing::V1(p) => &p.post_tx_apply_fee_processing.0,
        }
    }
}

struct Parts<'a> {
    header: &'a LedgerHeaderHistoryEntry,
    processing: Vec<Processing<'a>>,
    upgrades: &'a [UpgradeEntryMeta],
    evicted: &'a [LedgerKey],
    live_soroban_state_size: Option<u64>,
    envelopes: Vec<&'a TransactionEnvelope>,
}

fn parts_of(lcm: &LedgerCloseMeta) -> Parts<'_> {
    match lcm {
        LedgerCloseMeta::V0(m) => Parts {
            header: &m.ledger_header,
            processing: m.tx_processing.iter().map(Processing::V0).collect(),
            upgrades: &m.upgrades_processing,
            evicted: &[],
            live_soroban_state_size: None,
            envelopes: m.tx_set.txs.iter().collect(),
        },
        LedgerCloseMeta::V1(m) => Parts {
            header: &m.ledger_header,
            processing: m.tx_processing.iter().map(Processing::V0).collect(),
            upgrades: &m.upgrades_processing,
            evicted: &m.evicted_keys,
            live_soroban_state_size: None,
            envelopes: generalized_envelopes(&m.tx_set),
        },
        LedgerCloseMeta::V2(m) => Parts {
            header: &m.ledger_header,
            processing: m.tx_processing.iter().map(Processing::V1).collect(),
            upgrades: &m.upgrades_processing,
            evicted: &m.evicted_keys,
            live_soroban_state_size: Some(m.total_byte_size_of_live_soroban_state),
            envelopes: generalized_envelopes(&m.tx_set),
        },
    }
}

/// Every envelope of a generalized tx set: classic components and parallel Soroban stages alike.
fn generalized_envelopes(set: &GeneralizedTransactionSet) -> Vec<&TransactionEnvelope> {
    let GeneralizedTransactionSet::V1(set) = set;
    let mut out = Vec::new();
    for phase in set.phases.iter() {
        match phase {
            TransactionPhase::V0(components) => {
                for TxSetComponent::TxsetCompTxsMaybeDiscountedFee(c) in components.iter() {
                    out.extend(c.txs.iter());
                }
            }
            TransactionPhase::V1(parallel) => {
                for stage in parallel.execution_stages.iter() {
                    for cluster in stage.0.iter() {
                        out.extend(cluster.0.iter());
                    }
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Transactions

/// A V0 envelope's transaction as the V1 transaction it is hashed as.
fn v0_as_v1(v0: &TransactionV0) -> Transaction {
    Transaction {
        source_account: MuxedAccount::Ed25519(v0.source_account_ed25519.clone()),
        fee: v0.fee,
        seq_num: v0.seq_num.clone(),
        cond: v0.time_bounds.clone().map_or(Preconditions::None, Preconditions::Time),
        memo: v0.memo.clone(),
        operations: v0.operations.clone(),
        ext: TransactionExt::V0,
    }
}

/// sha256 of the TransactionSignaturePayload (network id, then the envelope type's tag and the
/// transaction), written straight from the envelope's parts.
fn transaction_hash(network_id: &[u8; 32], env: &TransactionEnvelope, scratch: &mut Vec<u8>) -> Res<[u8; 32]> {
    scratch.clear();
    scratch.extend_from_slice(network_id);
    let mut w = Limited::new(&mut *scratch, Limits::none());
    let written = match env {
        TransactionEnvelope::TxV0(e) => {
            EnvelopeType::Tx.write_xdr(&mut w).and_then(|()| v0_as_v1(&e.tx).write_xdr(&mut w))
        }
        TransactionEnvelope::Tx(e) => EnvelopeType::Tx.write_xdr(&mut w).and_then(|()| e.tx.write_xdr(&mut w)),
        TransactionEnvelope::TxFeeBump(e) => {
            EnvelopeType::TxFeeBump.write_xdr(&mut w).and_then(|()| e.tx.write_xdr(&mut w))
        }
    };
    written.map_err(|e| xdr_error("hashing a transaction", e))?;
    Ok(Sha256::digest(&scratch[..]).into())
}

fn envelopes_by_hash<'a>(
    envelopes: &[&'a TransactionEnvelope],
    network_id: &[u8; 32],
) -> Res<HashMap<[u8; 32], &'a TransactionEnvelope>> {
    let mut scratch = Vec::new();
    let mut by_hash = HashMap::with_capacity(envelopes.len());
    for env in envelopes {
        by_hash.insert(transaction_hash(network_id, env, &mut scratch)?, *env);
    }
    Ok(by_hash)
}

/// The operations of the transaction an envelope carries (the inner one of a fee bump).
fn operations_of(env: &TransactionEnvelope) -> &[Operation] {
    match env {
        TransactionEnvelope::TxV0(e) => &e.tx.operations,
        TransactionEnvelope::Tx(e) => &e.tx.operations,
        TransactionEnvelope::TxFeeBump(e) => match &e.tx.inner_tx {
            FeeBumpTransactionInnerTx::Tx(inner) => &inner.tx.operations,
        },
    }
}

fn is_soroban_operation(op: &Operation) -> bool {
    matches!(
        op.body,
        OperationBody::InvokeHostFunction(_) | OperationBody::ExtendFootprintTtl(_) | OperationBody::RestoreFootprint(_)
    )
}

/// getFeeStats' sample (feeSampleOf in ledgerToBatch.ts): a Soroban transaction's inclusion fee
/// (fee charged less the resource fees), or a classic one's fee per operation.
fn fee_sample(env: &TransactionEnvelope, result: &TransactionResult, meta: &TransactionMeta) -> Res<Option<(bool, i64)>> {
    let ops = operations_of(env);
    if ops.len() == 1 && is_soroban_operation(&ops[0]) {
        let ext = match meta {
            TransactionMeta::V4(m) => m.soroban_meta.as_ref().map(|s| &s.ext),
            TransactionMeta::V3(m) => m.soroban_meta.as_ref().map(|s| &s.ext),
            _ => None,
        };
        let Some(SorobanTransactionMetaExt::V1(v1)) = ext else { return Ok(None) };
        // JS computes this in bigints; i128 cannot overflow, and a real fee fits back in i64.
        let fee = i128::from(result.fee_charged)
            - (i128::from(v1.total_non_refundable_resource_fee_charged) + i128::from(v1.total_refundable_resource_fee_charged));
        let fee = i64::try_from(fee).map_err(|_| format!("inclusion fee {fee} out of range"))?;
        return Ok(Some((true, fee)));
    }
    if ops.is_empty() {
        return Ok(None);
    }
    Ok(Some((false, result.fee_charged / ops.len() as i64)))
}

/// The entry changes of a transaction's apply phase, in the order they happened.
fn meta_changes(meta: &TransactionMeta) -> Vec<&[LedgerEntryChange]> {
    match meta {
        TransactionMeta::V0(ops) => ops.iter().map(|o| &o.changes.0[..]).collect(),
        TransactionMeta::V1(m) => std::iter::once(&m.tx_changes.0[..])
            .chain(m.operations.iter().map(|o| &o.changes.0[..]))
            .collect(),
        TransactionMeta::V2(m) => std::iter::once(&m.tx_changes_before.0[..])
            .chain(m.operations.iter().map(|o| &o.changes.0[..]))
            .chain(std::iter::once(&m.tx_changes_after.0[..]))
            .collect(),
        TransactionMeta::V3(m) => std::iter::once(&m.tx_changes_before.0[..])
            .chain(m.operations.iter().map(|o| &o.changes.0[..]))
            .chain(std::iter::once(&m.tx_changes_after.0[..]))
            .collect(),
        TransactionMeta::V4(m) => std::iter::once(&m.tx_changes_before.0[..])
            .chain(m.operations.iter().map(|o| &o.changes.0[..]))
            .chain(std::iter::once(&m.tx_changes_after.0[..]))
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Events (eventsOf in ledgerToBatch.ts)

struct EventWriter<'a> {
    counts: &'a mut Vec<u32>,
    events: &'a mut Vec<String>,
    scratch: Vec<u8>,
}

impl EventWriter<'_> {
    fn list<T: WriteXdr>(&mut self, items: &[T]) -> Res<()> {
        self.counts.push(items.len() as u32);
        for item in items {
            self.scratch.clear();
            item.write_xdr(&mut Limited::new(&mut self.scratch, Limits::none()))
                .map_err(|e| xdr_error("encoding an event", e))?;
            self.events.push(B64.encode(&self.scratch));
        }
        Ok(())
    }

    /// One transaction's lists: transaction events, per-operation contract events, diagnostics.
    fn transaction(&mut self, meta: &TransactionMeta) -> Res<()> {
        match meta {
            TransactionMeta::V4(m) => {
                self.list(&m.events)?;
                self.counts.push(m.operations.len() as u32);
                for op in m.operations.iter() {
                    self.list(&op.events)?;
                }
                self.list(&m.diagnostic_events)
            }
            TransactionMeta::V3(m) if m.soroban_meta.is_some() => {
                let soroban = m.soroban_meta.as_ref().expect("checked");
                self.counts.extend([0, 1]);
                self.list(&soroban.events)?;
                self.list(&soroban.diagnostic_events)
            }
            _ => {
                self.counts.extend([0, 0, 0]);
                Ok(())
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Entry writes (EntryWrites in ledgerToBatch.ts)

/// Contract code and persistent contract data: evicted to the hot archive, not deleted.
fn is_persistent_contract_key(key: &LedgerKey) -> bool {
    match key {
        LedgerKey::ContractCode(_) => true,
        LedgerKey::ContractData(d) => d.durability == ContractDataDurability::Persistent,
        _ => false,
    }
}

/// The final value of every entry the ledger touched, by LedgerKey XDR (None = deleted).
#[derive(Default)]
struct EntryWrites<'a> {
    by_key: HashMap<Vec<u8>, Option<&'a LedgerEntry>>,
    /// Per key, what the meta says it was before the ledger, from the key's first change in
    /// application order: a STATE change gives the version, a CREATED change says it did not
    /// exist. Anything else (an UPDATED or REMOVED without STATE, a RESTORED entry, an eviction)
    /// leaves it to the store, which reads its current row.
    before: HashMap<Vec<u8>, Before<'a>>,
}

#[derive(Clone, Copy)]
enum Before<'a> {
    Was(&'a LedgerEntry),
    Absent,
    Unknown,
}

impl<'a> EntryWrites<'a> {
    fn apply_all(&mut self, changes: &'a [LedgerEntryChange]) -> Res<()> {
        for change in changes {
            match change {
                LedgerEntryChange::Created(e) => {
                    let key = entry_key(e)?;
                    self.before.entry(key.clone()).or_insert(Before::Absent);
                    self.by_key.insert(key, Some(e));
                }
                LedgerEntryChange::Updated(e) | LedgerEntryChange::Restored(e) => self.put(e)?,
                LedgerEntryChange::Removed(key) => self.remove(key)?,
                // the state before a change: not a write, but what the ledger replaces
                LedgerEntryChange::State(e) => {
                    self.before.entry(entry_key(e)?).or_insert(Before::Was(e));
                }
            }
        }
        Ok(())
    }

    fn put(&mut self, entry: &'a LedgerEntry) -> Res<()> {
        let key = entry_key(entry)?;
        self.before.entry(key.clone()).or_insert(Before::Unknown);
        self.by_key.insert(key, Some(entry));
        Ok(())
    }

    fn remove(&mut self, key: &LedgerKey) -> Res<()> {
        let key = key.to_xdr(Limits::none()).map_err(|e| xdr_error("encoding a key", e))?;
        self.before.entry(key.clone()).or_insert(Before::Unknown);
        self.by_key.insert(key, None);
        Ok(())
    }

    fn write_rows(&self, ledger_seq: u32, blob: &mut Blob, out: &mut Vec<u32>) -> Res<()> {
        out.reserve(self.by_key.len() * ENTRY_WORDS);
        for (key, entry) in &self.by_key {
            let key_span = blob.append(key)?;
            let (entry, last_modified) = match entry {
                Some(e) => (blob.append_xdr(*e)?, e.last_modified_ledger_seq),
                None => (Span { offset: NONE, len: 0 }, ledger_seq),
            };
            let (before, before_modified) = match self.before.get(key).copied().unwrap_or(Before::Unknown) {
                Before::Was(e) => (blob.append_xdr(e)?, e.last_modified_ledger_seq),
                Before::Absent => (Span { offset: NONE, len: BEFORE_ABSENT }, 0),
                Before::Unknown => (Span { offset: NONE, len: BEFORE_UNKNOWN }, 0),
            };
            out.extend([key_span.offset, key_span.len, entry.offset, entry.len, last_modified, before.offset, before.len, before_modified]);
        }
        Ok(())
    }
}

fn entry_key(entry: &LedgerEntry) -> Res<Vec<u8>> {
    entry.to_key().to_xdr(Limits::none()).map_err(|e| xdr_error("encoding a key", e))
}

// ---------------------------------------------------------------------------------------------
// The whole ledger

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn result_code(result: &TransactionResult) -> i32 {
    result.result.discriminant() as i32
}

fn inner_hash(result: &TransactionResult) -> Option<&[u8; 32]> {
    match &result.result {
        TransactionResultResult::TxFeeBumpInnerSuccess(p) | TransactionResultResult::TxFeeBumpInnerFailed(p) => {
            Some(&p.transaction_hash.0)
        }
        _ => None,
    }
}

/// Milliseconds per decode of `lcm_bytes` as a LedgerCloseMeta (see bench_decode_ledger_close_meta).
pub fn time_decodes(lcm_bytes: &[u8], iterations: u32) -> Res<Vec<f64>> {
    let limits = Limits { depth: MAX_XDR_DEPTH, len: lcm_bytes.len() };
    let mut out = Vec::with_capacity(iterations as usize);
    for _ in 0..iterations {
        let started = std::time::Instant::now();
        let lcm = LedgerCloseMeta::from_xdr(lcm_bytes, limits.clone()).map_err(|e| xdr_error("decoding the LedgerCloseMeta", e))?;
        std::hint::black_box(&lcm);
        drop(lcm);
        out.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(out)
}

pub fn ledger_to_rows(lcm_bytes: &[u8], network_id: &[u8; 32]) -> Res<Rows> {
    let limits = Limits { depth: MAX_XDR_DEPTH, len: lcm_bytes.len() };
    let lcm = LedgerCloseMeta::from_xdr(lcm_bytes, limits).map_err(|e| xdr_error("decoding the LedgerCloseMeta", e))?;
    let parts = parts_of(&lcm);
    let header = &parts.header.header;
    let seq = header.ledger_seq;
    let envelope_of = envelopes_by_hash(&parts.envelopes, network_id)?;

    let mut blob = Blob(Vec::with_capacity(lcm_bytes.len() * 2));
    let ledger_hash = blob.append(&parts.header.hash.0)?;
    let header_xdr = blob.append_xdr(parts.header)?;

    let mut writes = EntryWrites::default();
    for p in &parts.processing {
        writes.apply_all(p.fee_processing())?;
    }

    let mut transactions = Vec::with_capacity(parts.processing.len() * TX_WORDS);
    let mut event_counts = Vec::new();
    let mut events = Vec::new();
    let mut event_writer = EventWriter { counts: &mut event_counts, events: &mut events, scratch: Vec::new() };
    let mut fees = Vec::new();
    let mut fee_soroban = Vec::new();
    for p in &parts.processing {
        let pair = p.result();
        let Some(env) = envelope_of.get(&pair.transaction_hash.0) else {
            return Err(format!("ledger {seq}: no envelope in the tx set for result {}", hex(&pair.transaction_hash.0)));
        };
        let result = &pair.result;
        let meta = p.meta();
        for changes in meta_changes(meta) {
            writes.apply_all(changes)?;
        }
        let code = result_code(result);
        let mut flags = if code == 0 || code == 1 { TX_SUCCESSFUL } else { 0 };
        if matches!(env, TransactionEnvelope::TxFeeBump(_)) {
            flags |= TX_FEE_BUMP;
        }
        let hash = blob.append(&pair.transaction_hash.0)?;
        let inner = match inner_hash(result) {
            Some(h) => blob.append(h)?.offset,
            None => NONE,
        };
        let envelope = blob.append_xdr(*env)?;
        let result_xdr = blob.append_xdr(result)?;
        let meta_xdr = blob.append_xdr(meta)?;
        transactions.extend([
            hash.offset, inner, flags,
            envelope.offset, envelope.len, result_xdr.offset, result_xdr.len, meta_xdr.offset, meta_xdr.len,
        ]);
        event_writer.transaction(meta)?;
        if let Some((soroban, fee)) = fee_sample(env, result, meta)? {
            fees.push(fee);
            fee_soroban.push(u32::from(soroban));
        }
    }
    for p in &parts.processing {
        writes.apply_all(p.post_apply_fee_processing())?;
    }
    for upgrade in parts.upgrades {
        writes.apply_all(&upgrade.changes.0)?;
    }
    // An evicted persistent entry moves to the hot archive: the store keeps it without its TTL
    // (evicted and listed separately), so it reads as archived. Temporary entries and TTLs go.
    for key in parts.evicted.iter().filter(|k| !is_persistent_contract_key(k)) {
        writes.remove(key)?;
    }
    let mut entry_writes = Vec::new();
    writes.write_rows(seq, &mut blob, &mut entry_writes)?;

    Ok(Rows {
        sequence: seq,
        close_time: header.scp_value.close_time.0,
        protocol_version: header.ledger_version,
        bytes: blob.0,
        ledger: vec![ledger_hash.offset, ledger_hash.len, header_xdr.offset, header_xdr.len],
        transactions,
        event_counts,
        events,
        entry_writes,
        live_soroban_state_size: parts.live_soroban_state_size,
        fees,
        fee_soroban,
    })
}
