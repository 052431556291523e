//! A counter kept in instance storage; every increment emits a `("counter", "incr")` event.
#![no_std]
use soroban_sdk::{contract, contractimpl, symbol_short, Env, Symbol};

const COUNT: Symbol = symbol_short!("COUNT");

#[contract]
pub struct Counter;

#[contractimpl]
impl Counter {
    /// Adds `by` and returns the new count.
    pub fn increment(env: Env, by: u32) -> u32 {
        let count: u32 = env.storage().instance().get(&COUNT).unwrap_or(0) + by;
        env.storage().instance().set(&COUNT, &count);
        #[allow(deprecated)]
        env.events().publish((symbol_short!("counter"), symbol_short!("incr")), count);
        count
    }

    /// Adds `by` like `increment`, then fails with contract error #7: the host rolls the write back.
    pub fn increment_then_fail(env: Env, by: u32) -> u32 {
        let count = Self::increment(env.clone(), by);
        env.panic_with_error(soroban_sdk::Error::from_contract_error(7));
        #[allow(unreachable_code)]
        count
    }

    pub fn get(env: Env) -> u32 {
        env.storage().instance().get(&COUNT).unwrap_or(0)
    }
}
