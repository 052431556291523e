//! An owner of CAP-85 executable references: it names Wasm hashes under tags, so that contracts
//! created with an external executable (`ContractExecutable::ExternalRef { owner, tag }`) run
//! whatever Wasm the tag names at the time of the call. Re-publishing a tag upgrades all of them
//! at once. Anyone may publish here: this is a test contract, a real owner must check its caller.
#![no_std]
use soroban_sdk::{contract, contractimpl, Address, BytesN, ContractExecutable, ContractExecutableRef, Env, String, Val};

// The host function behind the SDK's private tag keys (module "l", function "h" of env.json), so an
// event can carry a tag: `create_executable_tag(StringObject) -> ExecutableTagObject`.
#[link(wasm_import_module = "l")]
extern "C" {
    #[link_name = "h"]
    fn create_executable_tag(tag: u64) -> u64;
}

#[contract]
pub struct Registry;

#[contractimpl]
impl Registry {
    /// Points `tag` at `wasm_hash` (an uploaded Wasm; the host refuses any other hash).
    pub fn publish(env: Env, tag: String, wasm_hash: BytesN<32>) {
        env.executable_refs().set(&tag, &wasm_hash);
    }

    /// The Wasm hash `tag` names, if any.
    pub fn resolve(env: Env, tag: String) -> Option<BytesN<32>> {
        env.executable_refs().get(&tag)
    }

    /// Creates a contract (deployer: this contract) whose executable is the reference `tag` here.
    pub fn deploy(env: Env, tag: String, salt: BytesN<32>) -> Address {
        let executable = ContractExecutable::ExternalRef(ContractExecutableRef { owner: env.current_contract_address(), tag });
        env.deployer().with_current_contract(salt).deploy_contract(executable, ())
    }

    /// Emits an event whose only topic is the executable tag `tag` itself (an `SCV_EXECUTABLE_TAG`).
    pub fn announce(env: Env, tag: String) {
        let key = Val::from_payload(unsafe { create_executable_tag(tag.to_val().get_payload()) });
        #[allow(deprecated)]
        env.events().publish((key,), ());
    }
}
