//! Reads lines `<type> <base64 XDR>` on stdin and prints, one line each, the value as the stellar-xdr
//! crate's serde JSON (what stellar-rpc answers with `xdrFormat: "json"`), or `{"error": "..."}`.
//! The type is the crate's name (`LedgerCloseMeta`, `ScVal`, `UInt128Parts`).

use std::io::{self, BufRead, BufWriter, Write};
use std::str::FromStr;

use stellar_xdr::{Limits, Type, TypeVariant};

/// stellar-rpc's xdr2json limits: nesting depth 500, 32 MiB of input.
const LIMITS: Limits = Limits { depth: 500, len: 32 * 1024 * 1024 };

fn render(type_name: &str, base64: &str) -> Result<String, String> {
    let variant = TypeVariant::from_str(type_name).map_err(|e| format!("unknown type {type_name}: {e}"))?;
    let value = Type::from_xdr_base64(variant, base64, LIMITS.clone()).map_err(|e| format!("{type_name}: {e}"))?;
    serde_json::to_string(&value).map_err(|e| format!("{type_name}: {e}"))
}

fn main() -> io::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    for line in io::stdin().lock().lines() {
        let line = line?;
        let json = match line.split_once(' ') {
            Some((type_name, base64)) => render(type_name, base64),
            None => Err(format!("expected `<type> <base64>`, got {line:?}")),
        }
        .unwrap_or_else(|e| serde_json::json!({ "error": e }).to_string());
        writeln!(out, "{json}")?;
        out.flush()?;
    }
    Ok(())
}
