//! The trace hook of one host line (compiled once per line, as `line.rs` is): what the host reports
//! while a transaction runs, kept as plain `TraceStep`s. The hook only reads the budget (what it has
//! metered so far) and renders what the host hands it; it never charges the budget, so a traced
//! run's result, meta and costs are the untraced run's.

use crate::apply::TraceStep;
use super::host::budget::Budget;
use super::host::{TraceEvent, TraceHook};
use std::cell::RefCell;
use std::rc::Rc;

/// The host's storage calls a frame makes (Env functions); everything else a contract calls is left out.
fn is_storage_call(name: &str) -> bool {
    matches!(
        name,
        "get_contract_data"
            | "put_contract_data"
            | "has_contract_data"
            | "del_contract_data"
            | "extend_contract_data_ttl"
            | "extend_current_contract_instance_and_code_ttl"
            | "extend_contract_instance_and_code_ttl"
            | "extend_contract_instance_ttl"
            | "extend_contract_code_ttl"
    )
}

/// "push VM:abcd:name(args)" / "pop VM:abcd:name -> Ok(..)": the host's frame id is
/// TYPE:ID[:SYMBOL]; the type and the symbol are what the trace keeps.
fn frame_id(text: &str) -> (String, String) {
    let mut parts = text.splitn(3, ':');
    let kind = parts.next().unwrap_or("").to_string();
    let _id = parts.next();
    let function = parts.next().unwrap_or("").to_string();
    (kind, function)
}

/// How many arguments "a, Object(Vec(#3)), Error(Contract, #1))" lists: commas outside parentheses.
fn argument_count(list: &str) -> u32 {
    let list = list.strip_suffix(')').unwrap_or(list);
    if list.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut count = 1;
    for c in list.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => count += 1,
            _ => {}
        }
    }
    count
}

pub struct Recorder {
    steps: Rc<RefCell<Vec<TraceStep>>>,
}

impl Recorder {
    pub fn new() -> Self {
        Self { steps: Rc::new(RefCell::new(Vec::new())) }
    }

    /// The hook to hand the host; `budget` is the invocation's own.
    pub fn hook(&self, budget: &Budget) -> TraceHook {
        let steps = self.steps.clone();
        let budget = budget.clone();
        Rc::new(move |_host, event| {
            let step = match &event {
                TraceEvent::EnvCall(name, args) => is_storage_call(name).then(|| TraceStep::Storage {
                    call: name.to_string(),
                    args: args.iter().map(|a| format!("{a:?}")).collect(),
                }),
                TraceEvent::EnvRet(..) | TraceEvent::Begin | TraceEvent::End => None,
                // PushCtx and PopCtx: their frame is the host's private type, so the host's own
                // rendering of the event is what can be read.
                _ => {
                    let text = event.to_string();
                    let cpu = budget.get_cpu_insns_consumed().unwrap_or(0);
                    let mem = budget.get_mem_bytes_consumed().unwrap_or(0);
                    if let Some(rest) = text.strip_prefix("push ") {
                        let (id, args) = rest.split_once('(').unwrap_or((rest, ")"));
                        let (kind, function) = frame_id(id);
                        Some(TraceStep::Push { kind, function, args: argument_count(args), cpu, mem })
                    } else if let Some(rest) = text.strip_prefix("pop ") {
                        let result = rest.split_once(" -> ").map(|(_, r)| r).unwrap_or("");
                        let (ok, inner) = if let Some(v) = result.strip_prefix("Ok(") {
                            (true, v.strip_suffix(')').unwrap_or(v))
                        } else {
                            (false, result.strip_prefix("Err(").and_then(|v| v.strip_suffix(')')).unwrap_or(result))
                        };
                        Some(TraceStep::Pop { ok, result: inner.to_string(), cpu, mem })
                    } else {
                        None
                    }
                }
            };
            if let Some(step) = step {
                if let Ok(mut steps) = steps.try_borrow_mut() {
                    steps.push(step);
                }
            }
            Ok(())
        })
    }

    pub fn take(&self) -> Vec<TraceStep> {
        std::mem::take(&mut *self.steps.borrow_mut())
    }
}
