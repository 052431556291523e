//! `xdrFormat: "json"`: XDR values rendered as JSON by the stellar-xdr crate's serde support, the
//! rendering the reference node (stellar-rpc) serves, so field names and shapes match it by
//! construction. A pubnet LedgerCloseMeta renders here in a few milliseconds (the generated
//! JavaScript took over a hundred).
//!
//! Only the types the API renders are accepted (`render` lists them): naming a type is the caller's
//! choice, not a client's, and the crate's catch-all `Type` enum would compile every XDR type's
//! decoder into one more dispatch table.

use std::io::{self, Write};

use serde::Serialize;
use stellar_xdr::{Limits, ReadXdr};

use crate::ingest::MAX_XDR_DEPTH;

/// The largest JSON text one value may render to. Stored values are at most a few megabytes of
/// XDR, whose JSON is a few times larger; this bound only stops a pathological value from taking
/// the process's memory (the request fails instead).
pub const MAX_JSON_BYTES: usize = 512 * 1024 * 1024;

/// A Vec that refuses to grow past a bound: serde_json stops at the first refused write.
struct Bounded {
    out: Vec<u8>,
    max: usize,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.out.len() + buf.len() > self.max {
            return Err(io::Error::other(format!("its JSON exceeds {} bytes", self.max)));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn decode_and_render<T: ReadXdr + Serialize>(name: &str, bytes: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let limits = Limits { depth: MAX_XDR_DEPTH, len: bytes.len() };
    let value = T::from_xdr(bytes, limits).map_err(|e| format!("cannot decode {} bytes as {name}: {e}", bytes.len()))?;
    // JSON is a few times the XDR's size: reserving that much saves the doublings of a large value
    let mut w = Bounded { out: Vec::with_capacity((bytes.len() * 3).min(max)), max };
    serde_json::to_writer(&mut w, &value).map_err(|e| format!("cannot render a {name} as JSON: {e}"))?;
    Ok(w.out)
}

/// The JSON text (UTF-8) of `bytes` decoded as the XDR type `name`.
pub fn render(name: &str, bytes: &[u8], max: usize) -> Result<Vec<u8>, String> {
    use stellar_xdr as x;
    macro_rules! types {
        ($($t:ident),* $(,)?) => {
            match name {
                $(stringify!($t) => decode_and_render::<x::$t>(name, bytes, max),)*
                _ => Err(format!("no JSON rendering for the XDR type '{name}'")),
            }
        };
    }
    types!(
        LedgerCloseMeta, LedgerHeaderHistoryEntry, TransactionEnvelope, TransactionResult, TransactionMeta,
        DiagnosticEvent, TransactionEvent, ContractEvent, ScVal, LedgerKey, LedgerEntry, LedgerEntryData,
        LedgerEntryExt, SorobanTransactionData, SorobanAuthorizationEntry,
    )
}

/// Each (type, bytes) pair's JSON, in order; the first failure fails them all.
pub fn render_all(items: &[(String, Vec<u8>)]) -> Result<Vec<Vec<u8>>, String> {
    items.iter().map(|(name, bytes)| render(name, bytes, MAX_JSON_BYTES)).collect()
}
