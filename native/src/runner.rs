//! Runs host work on big-stack threads (contract calls nest deeply; the reference server gives each
//! simulation 100 MiB too) and turns a panic into an error instead of letting it unwind into Node
//! (which would abort the process).
//!
//! The threads are kept and reused: creating one costs about half a millisecond here (mapping and
//! faulting in a fresh stack), as much as a whole small simulation. A job goes to an idle thread if
//! there is one, else to a new thread, which afterwards stays idle for the next job (at most
//! `MAX_IDLE` wait; more exit).

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, SendError, Sender};
use std::sync::Mutex;

pub const HOST_THREAD_STACK_SIZE: usize = 100 * 1024 * 1024;
const MAX_IDLE: usize = 8;

/// What a finished job hands back: run after the thread has marked itself idle, so that the next
/// job goes to this warm thread rather than a cold one.
type Reply = Box<dyn FnOnce() + Send + 'static>;
type Job = Box<dyn FnOnce() -> Reply + Send + 'static>;

/// A set of kept threads: the host threads, and the background threads, which run at a lower CPU
/// priority (rendering JSON: long CPU work that must not slow the Node thread that serves every
/// other client, on a machine with few cores).
struct Pool {
    idle: Mutex<Vec<Sender<Job>>>,
    name: &'static str,
    /// Added to the thread's nice value when it starts (Linux: nice values are per thread).
    niceness: i32,
}

static HOST: Pool = Pool { idle: Mutex::new(Vec::new()), name: "lumen-host", niceness: 0 };
static BACKGROUND: Pool = Pool { idle: Mutex::new(Vec::new()), name: "lumen-background", niceness: 10 };

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown cause".to_string()
    }
}

fn idle_worker(pool: &'static Pool) -> Option<Sender<Job>> {
    pool.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop()
}

#[cfg(target_os = "linux")]
fn lower_priority(niceness: i32) {
    if niceness != 0 {
        // best effort: a thread that keeps its priority still works
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, tid);
            libc::setpriority(libc::PRIO_PROCESS, tid, now + niceness);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_niceness: i32) {}

fn spawn_worker(pool: &'static Pool, first: Job) -> Result<(), String> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name(pool.name.into())
        .stack_size(HOST_THREAD_STACK_SIZE)
        .spawn(move || {
            lower_priority(pool.niceness);
            let mut next = Some(first);
            while let Some(job) = next.take() {
                let reply = job(); // never unwinds: jobs catch their own panics
                let stay = {
                    let mut idle = pool.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    let stay = idle.len() < MAX_IDLE;
                    if stay {
                        idle.push(tx.clone());
                    }
                    stay
                };
                reply();
                if !stay {
                    return;
                }
                next = rx.recv().ok();
            }
        })
        .map(|_| ())
        .map_err(|e| format!("failed to spawn a host thread: {e}"))
}

fn dispatch(pool: &'static Pool, mut job: Job) -> Result<(), String> {
    while let Some(worker) = idle_worker(pool) {
        match worker.send(job) {
            Ok(()) => return Ok(()),
            Err(SendError(returned)) => job = returned, // that thread is gone; try another
        }
    }
    spawn_worker(pool, job)
}

static QUIET_PANICS: std::sync::Once = std::sync::Once::new();

/// Panics are reported through the caller's error, so the hook only logs one line (no backtrace
/// dump, whatever RUST_BACKTRACE says). The hook is this addon's own: its Rust runtime is private.
fn install_panic_hook() {
    QUIET_PANICS.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let thread = std::thread::current();
            eprintln!("[lumen-native] thread '{}' {}", thread.name().unwrap_or("?"), info.to_string().replace('\n', " "));
        }));
    });
}

/// Runs `work` on a big-stack host thread and waits for it. A panic inside becomes
/// `Err("panic during <what>: <message>")`.
pub fn run_on_host_thread<T, F>(what: &str, work: F) -> Result<T, String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    install_panic_hook();
    let (reply_tx, reply_rx) = mpsc::sync_channel(1);
    dispatch(&HOST, Box::new(move || {
        let outcome = panic::catch_unwind(AssertUnwindSafe(work));
        Box::new(move || {
            let _ = reply_tx.send(outcome);
        }) as Reply
    }))?;
    match reply_rx.recv() {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(payload)) => Err(format!("panic during {what}: {}", panic_text(payload))),
        Err(_) => Err(format!("the host thread stopped during {what}")),
    }
}

/// Runs `work` on a big-stack host thread without waiting: `deliver` gets its outcome (a panic as
/// `Err("panic during <what>: <message>")`) on that thread. Lets a Node promise be settled straight
/// from the host thread, with no libuv worker in between.
pub fn spawn_on_host_thread<T, F, D>(what: &'static str, work: F, deliver: D) -> Result<(), String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
    D: FnOnce(Result<T, String>) + Send + 'static,
{
    spawn_on(&HOST, what, work, deliver)
}

/// spawn_on_host_thread on a background thread: the same big stack, a lower CPU priority.
pub fn spawn_on_background_thread<T, F, D>(what: &'static str, work: F, deliver: D) -> Result<(), String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
    D: FnOnce(Result<T, String>) + Send + 'static,
{
    spawn_on(&BACKGROUND, what, work, deliver)
}

fn spawn_on<T, F, D>(pool: &'static Pool, what: &'static str, work: F, deliver: D) -> Result<(), String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
    D: FnOnce(Result<T, String>) + Send + 'static,
{
    install_panic_hook();
    dispatch(pool, Box::new(move || {
        let outcome = panic::catch_unwind(AssertUnwindSafe(work))
            .map_err(|payload| format!("panic during {what}: {}", panic_text(payload)));
        Box::new(move || deliver(outcome)) as Reply
    }))
}
