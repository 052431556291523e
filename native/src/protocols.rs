//! The ledger protocols this build runs: one host line each (a soroban-env-host and a
//! soroban-simulation pair in Cargo.toml, named by protocol), used by apply (`apply.rs`) and
//! simulation (`simulate.rs`), whose compile-time checks hold them to this list. The next protocol
//! is a crate pair, a line in each of those two files and an entry here (docs/protocol-upgrade.md).
//! Which protocol a new network runs is the engine's choice (src/ledger/protocols.ts), not the addon's.

/// Oldest first, consecutive.
pub const SUPPORTED: [u32; 3] = [28, 29, 30];

const _: () = {
    let mut i = 1;
    while i < SUPPORTED.len() {
        assert!(SUPPORTED[i] == SUPPORTED[i - 1] + 1);
        i += 1;
    }
};

/// Element-wise equality, usable in constant assertions.
pub const fn eq(a: &[u32], b: &[u32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

pub fn describe() -> String {
    format!("protocols {} to {}", SUPPORTED[0], SUPPORTED[SUPPORTED.len() - 1])
}
