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

    /// Calls `increment(by)` on the counter, then `increment_then_fail(by)`, whose error it catches
    /// (so that call's write is rolled back and this one's stays); returns the counter's count.
    pub fn increment_then_try_failing(env: Env, counter: Address, by: u32) -> u32 {
        let _: u32 = env.invoke_contract(&counter, &Symbol::new(&env, "increment"), vec![&env, by.into_val(&env)]);
        let failed = env.try_invoke_contract::<u32, soroban_sdk::Error>(
            &counter,
            &Symbol::new(&env, "increment_then_fail"),
            vec![&env, by.into_val(&env)],
        );
        assert!(failed.is_err());
        env.invoke_contract(&counter, &Symbol::new(&env, "get"), vec![&env])
    }

    /// Calls `increment(by)` on the counter `times` times (a call tree as wide as asked); returns the count.
    pub fn increment_times(env: Env, counter: Address, by: u32, times: u32) -> u32 {
        let mut count = 0;
        for _ in 0..times {
            count = env.invoke_contract(&counter, &Symbol::new(&env, "increment"), vec![&env, by.into_val(&env)]);
        }
        count
    }

    /// Calls `get()` on the counter at `counter`.
    pub fn call_get(env: Env, counter: Address) -> u32 {
        env.invoke_contract(&counter, &Symbol::new(&env, "get"), vec![&env])
    }
}
