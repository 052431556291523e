//! A snapshot dumped by lumen-rpc (lumen_dumpState), read the way contract tests read one. The node
//! side (run.ts) deploys the counter and storage test contracts, sets their data, dumps the state and
//! runs `cargo test` with:
//!   LUMEN_SNAPSHOT       the dumped file
//!   LUMEN_COUNTER_ID     the counter contract (C...), LUMEN_COUNTER_VALUE its count
//!   LUMEN_STORAGE_ID     the storage contract, holding persistent "kept" = LUMEN_KEPT_VALUE
//!   LUMEN_SNAPSHOT_OUT   where to write the Env's snapshot after an increment (run.ts loads it back)
use soroban_ledger_snapshot::LedgerSnapshot;
use soroban_sdk::{symbol_short, testutils::EnvTestConfig, vec, Address, Env, IntoVal, Symbol};

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run this test through test/rust/ledger-snapshot/run.ts"))
}

/// The file is exactly what the crate itself writes for the snapshot it reads (same serde JSON form
/// for every entry type), and its ledger values are the network's.
#[test]
fn the_dump_is_in_the_crates_own_form() {
    let text = std::fs::read_to_string(var("LUMEN_SNAPSHOT")).unwrap();
    let snapshot = LedgerSnapshot::read(text.as_bytes()).expect("soroban-ledger-snapshot reads the dump");
    let ours: serde_json::Value = serde_json::from_str(&text).unwrap();
    let theirs = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(ours, theirs, "re-serialized by the crate, the dump is unchanged");
    assert!(snapshot.ledger_entries.len() > 20);
    // every kind of entry the node holds is there (TTLs ride on live_until)
    let kinds: std::collections::BTreeSet<String> = ours["ledger_entries"].as_array().unwrap().iter()
        .map(|e| e["entry"]["data"].as_object().unwrap().keys().next().unwrap().clone())
        .collect();
    for kind in ["account", "trustline", "offer", "data", "claimable_balance", "liquidity_pool", "contract_data", "contract_code", "config_setting"] {
        assert!(kinds.contains(kind), "no {kind} entry in the dump: {kinds:?}");
    }
    assert!(snapshot.sequence_number > 1);
    assert!(snapshot.min_persistent_entry_ttl > 0 && snapshot.max_entry_ttl > snapshot.min_persistent_entry_ttl);
}

#[test]
fn contracts_read_and_run_from_the_dump() {
    let mut env = Env::from_ledger_snapshot_file(var("LUMEN_SNAPSHOT"));
    // no test_snapshots/ file in the source folder
    env.set_config(EnvTestConfig { capture_snapshot_at_drop: false });
    let counter = Address::from_str(&env, &var("LUMEN_COUNTER_ID"));
    let storage = Address::from_str(&env, &var("LUMEN_STORAGE_ID"));
    let count: u32 = var("LUMEN_COUNTER_VALUE").parse().unwrap();
    let kept: u64 = var("LUMEN_KEPT_VALUE").parse().unwrap();

    // the contract's data, read directly
    let stored: Option<u32> = env.as_contract(&counter, || env.storage().instance().get(&symbol_short!("COUNT")));
    assert_eq!(stored, Some(count));
    // and through the contracts' own Wasm, which the host runs from the dumped contract code
    let got: u32 = env.invoke_contract(&counter, &Symbol::new(&env, "get"), vec![&env]);
    assert_eq!(got, count);
    let value: Option<u64> = env.invoke_contract(&storage, &Symbol::new(&env, "get_persistent"), vec![&env, symbol_short!("kept").into_val(&env)]);
    assert_eq!(value, Some(kept));
    let after: u32 = env.invoke_contract(&counter, &Symbol::new(&env, "increment"), vec![&env, 100u32.into_val(&env)]);
    assert_eq!(after, count + 100);
    assert!(env.ledger().sequence() > 1);

    if let Ok(out) = std::env::var("LUMEN_SNAPSHOT_OUT") {
        env.to_ledger_snapshot_file(out);
    }
}
