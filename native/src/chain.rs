//! The chain of empty ledgers a fast-forward closes (src/standalone/emptyLedgers.ts holds the layout
//! and the same loop in JavaScript). Per ledger it is three sha256 of a few hundred bytes; from
//! JavaScript each crypto.hash call costs microseconds of overhead, here the whole ledger costs well
//! under one (SHA extensions), so a million ledgers whose rows are not stored take a fraction of a
//! second instead of several.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sha2::{Digest, Sha256};

// The chain state, one buffer: the header template (LedgerHeader XDR, BASIC value, no upgrades),
// the empty transaction set's XDR, the state hash's input (bucket-list hash | tx set hash | result
// set hash) and the hash of the ledger last made.
const HEADER: usize = 0;
const HEADER_LEN: usize = 324;
const TX_SET: usize = HEADER + HEADER_LEN;
const TX_SET_LEN: usize = 60;
const STATE: usize = TX_SET + TX_SET_LEN;
const LAST_HASH: usize = STATE + 96;
const CHAIN_LEN: usize = LAST_HASH + 32;

// Offsets in the header.
const PREV_HASH: usize = 4;
const TX_SET_HASH: usize = 36;
const CLOSE_TIME: usize = 68;
const BUCKET_LIST_HASH: usize = 116;
const LEDGER_SEQ: usize = 148;
const SKIP_LIST: usize = 192;
/// The transaction set's previousLedgerHash.
const TX_SET_PREV_HASH: usize = 4;

const SKIP_1: u32 = 50;
const SKIP_2: u32 = 5000;
const SKIP_3: u32 = 50000;
const SKIP_4: u32 = 500000;

/// A LedgerHeaderHistoryEntry's XDR: hash, header, ext v0.
const ENTRY_LEN: usize = 32 + HEADER_LEN + 4;

/// Makes `count` empty ledgers after the chain state `chain`: ledger `first_seq + i` closes at
/// `first_close_time + i * close_time_step`. Returns the chain state after the last one, followed,
/// with `with_headers`, by each ledger's LedgerHeaderHistoryEntry XDR (the ledgers that are stored).
#[napi]
pub fn advance_empty_ledgers(chain: Buffer, first_seq: u32, count: u32, first_close_time: i64, close_time_step: i64, with_headers: Option<bool>) -> Result<Buffer> {
    if chain.len() != CHAIN_LEN {
        return Err(Error::from_reason(format!("chain state of {} bytes, expected {CHAIN_LEN}", chain.len())));
    }
    let with_headers = with_headers.unwrap_or(false);
    let mut s = chain.to_vec();
    let mut entries: Vec<u8> = Vec::with_capacity(if with_headers { count as usize * ENTRY_LEN } else { 0 });
    for i in 0..count {
        let seq = first_seq + i;
        let close_time = (first_close_time + i as i64 * close_time_step) as u64;
        let last: [u8; 32] = s[LAST_HASH..LAST_HASH + 32].try_into().unwrap();
        s[TX_SET + TX_SET_PREV_HASH..TX_SET + TX_SET_PREV_HASH + 32].copy_from_slice(&last);
        let tx_set_hash: [u8; 32] = Sha256::digest(&s[TX_SET..TX_SET + TX_SET_LEN]).into();
        s[STATE + 32..STATE + 64].copy_from_slice(&tx_set_hash);
        let bucket_list_hash: [u8; 32] = Sha256::digest(&s[STATE..STATE + 96]).into();
        s[STATE..STATE + 32].copy_from_slice(&bucket_list_hash);
        let h = &mut s[HEADER..HEADER + HEADER_LEN];
        h[PREV_HASH..PREV_HASH + 32].copy_from_slice(&last);
        h[TX_SET_HASH..TX_SET_HASH + 32].copy_from_slice(&tx_set_hash);
        h[CLOSE_TIME..CLOSE_TIME + 8].copy_from_slice(&close_time.to_be_bytes());
        h[BUCKET_LIST_HASH..BUCKET_LIST_HASH + 32].copy_from_slice(&bucket_list_hash);
        h[LEDGER_SEQ..LEDGER_SEQ + 4].copy_from_slice(&seq.to_be_bytes());
        if seq % SKIP_1 == 0 {
            update_skip_list(h, seq, &bucket_list_hash);
        }
        let hash: [u8; 32] = Sha256::digest(&*h).into();
        if with_headers {
            entries.extend_from_slice(&hash);
            entries.extend_from_slice(h);
            entries.extend_from_slice(&[0u8; 4]);
        }
        s[LAST_HASH..LAST_HASH + 32].copy_from_slice(&hash);
    }
    s.extend_from_slice(&entries);
    Ok(s.into())
}

/// stellar-core's skip list (src/ledger/header.ts updateSkipList), on the header's bytes.
fn update_skip_list(h: &mut [u8], seq: u32, bucket_list_hash: &[u8; 32]) {
    let slot = |i: usize| SKIP_LIST + 32 * i;
    let copy = |h: &mut [u8], from: usize, to: usize| {
        let v: [u8; 32] = h[slot(from)..slot(from) + 32].try_into().unwrap();
        h[slot(to)..slot(to) + 32].copy_from_slice(&v);
    };
    let v = seq as i64 - SKIP_1 as i64;
    if v > 0 && v % SKIP_2 as i64 == 0 {
        let w = seq as i64 - SKIP_2 as i64 - SKIP_1 as i64;
        if w > 0 && w % SKIP_3 as i64 == 0 {
            let x = seq as i64 - SKIP_3 as i64 - SKIP_2 as i64 - SKIP_1 as i64;
            if x > 0 && x % SKIP_4 as i64 == 0 {
                copy(h, 2, 3);
            }
            copy(h, 1, 2);
        }
        copy(h, 0, 1);
    }
    h[slot(0)..slot(0) + 32].copy_from_slice(bucket_list_hash);
}
