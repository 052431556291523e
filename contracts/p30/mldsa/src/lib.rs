//! Verifies ML-DSA signatures (FIPS 204, pure ML-DSA with a context string) through the host
//! functions CAP-87 adds in protocol 30, one function per parameter set. Each returns true when the
//! signature is valid; otherwise the host fails the call (`Error(Crypto, InvalidInput)`), as the SDK
//! leaves it: a contract cannot catch a failed verification, so there is no `false` to return.
#![no_std]
use soroban_sdk::{contract, contractimpl, Bytes, BytesN, Env};

#[contract]
pub struct MlDsa;

#[contractimpl]
impl MlDsa {
    /// ML-DSA-44: a 1312-byte public key, a 2420-byte signature.
    pub fn verify_44(env: Env, public_key: BytesN<1312>, message: Bytes, signature: BytesN<2420>, context: Bytes) -> bool {
        env.crypto().ml_dsa_44_verify(&public_key, &message, &signature, &context);
        true
    }

    /// ML-DSA-65: a 1952-byte public key, a 3309-byte signature.
    pub fn verify_65(env: Env, public_key: BytesN<1952>, message: Bytes, signature: BytesN<3309>, context: Bytes) -> bool {
        env.crypto().ml_dsa_65_verify(&public_key, &message, &signature, &context);
        true
    }

    /// ML-DSA-87: a 2592-byte public key, a 4627-byte signature.
    pub fn verify_87(env: Env, public_key: BytesN<2592>, message: Bytes, signature: BytesN<4627>, context: Bytes) -> bool {
        env.crypto().ml_dsa_87_verify(&public_key, &message, &signature, &context);
        true
    }
}
