//! Failures: contract errors (`Error(Contract, #N)`), a panic, and a loop that runs out of budget.
#![no_std]
use soroban_sdk::{contract, contracterror, contractimpl, panic_with_error, Env};

#[contracterror]
#[derive(Copy, Clone, Debug, Eq, PartialEq, PartialOrd, Ord)]
#[repr(u32)]
pub enum Error {
    Negative = 1,
    TooBig = 2,
    Always = 3,
}

#[contract]
pub struct Errors;

#[contractimpl]
impl Errors {
    /// Ok(value) for 0..=100, else Error(Contract, #1) (negative) or #2 (too big).
    pub fn check(_env: Env, value: i64) -> Result<i64, Error> {
        if value < 0 {
            Err(Error::Negative)
        } else if value > 100 {
            Err(Error::TooBig)
        } else {
            Ok(value)
        }
    }

    /// Always fails with Error(Contract, #3).
    pub fn fail(env: Env) {
        panic_with_error!(&env, Error::Always)
    }

    /// Loops until the instruction budget runs out.
    pub fn spin(_env: Env, seed: u64) -> u64 {
        let mut x = seed;
        loop {
            x = core::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}
