//! Values owned by accounts: setting one needs the owner's authorization, which, when the owner is
//! not the transaction's source, is a signed SorobanAuthorizationEntry from that second account.
#![no_std]
use soroban_sdk::{contract, contractimpl, Address, Env};

#[contract]
pub struct Owned;

#[contractimpl]
impl Owned {
    /// Stores `value` for `owner`; requires `owner`'s authorization (of these arguments).
    pub fn set(env: Env, owner: Address, value: u32) -> u32 {
        owner.require_auth();
        env.storage().persistent().set(&owner, &value);
        value
    }

    /// Moves `amount` from `from`'s value to `to`'s; both must authorize.
    pub fn transfer(env: Env, from: Address, to: Address, amount: u32) {
        from.require_auth();
        to.require_auth();
        let have: u32 = env.storage().persistent().get(&from).unwrap_or(0);
        let got: u32 = env.storage().persistent().get(&to).unwrap_or(0);
        env.storage().persistent().set(&from, &(have - amount));
        env.storage().persistent().set(&to, &(got + amount));
    }

    pub fn get(env: Env, owner: Address) -> u32 {
        env.storage().persistent().get(&owner).unwrap_or(0)
    }
}
