//! Cross-contract calls: forwards to another contract's function.
#![no_std]
use soroban_sdk::{contract, contractimpl, vec, Address, Env, IntoVal, Symbol};

#[contract]
pub struct Caller;

#[contractimpl]
impl Caller {
    /// Calls `increment(by)` on the counter at `counter` and returns its result.
    pub fn call_increment(env: Env, counter: Address, by: u32) -> u32 {
        env.invoke_contract(&counter, &Symbol::new(&env, "increment"), vec![&env, by.into_val(&env)])
    }

    /// Calls `get()` on the counter at `counter`.
    pub fn call_get(env: Env, counter: Address) -> u32 {
        env.invoke_contract(&counter, &Symbol::new(&env, "get"), vec![&env])
    }
}
