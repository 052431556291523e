//! Temporary and persistent data: writes, reads, removal and TTL extension.
#![no_std]
use soroban_sdk::{contract, contractimpl, Env, Symbol};

#[contract]
pub struct Storage;

#[contractimpl]
impl Storage {
    pub fn put_temporary(env: Env, key: Symbol, value: u64) {
        env.storage().temporary().set(&key, &value);
    }

    pub fn put_persistent(env: Env, key: Symbol, value: u64) {
        env.storage().persistent().set(&key, &value);
    }

    /// None when absent (a temporary entry also disappears once its TTL ends).
    pub fn get_temporary(env: Env, key: Symbol) -> Option<u64> {
        env.storage().temporary().get(&key)
    }

    pub fn get_persistent(env: Env, key: Symbol) -> Option<u64> {
        env.storage().persistent().get(&key)
    }

    pub fn remove_persistent(env: Env, key: Symbol) {
        env.storage().persistent().remove(&key);
    }

    /// Extends the persistent entry's TTL to at least `extend_to` ledgers when below `threshold`.
    pub fn extend_persistent(env: Env, key: Symbol, threshold: u32, extend_to: u32) {
        env.storage().persistent().extend_ttl(&key, threshold, extend_to);
    }
}
