//! The addon's global allocator: mimalloc, except for large zeroed blocks.
//!
//! Every contract call instantiates a VM whose linear memory (1 MiB and up for a Soroban SDK
//! contract) wasmi allocates zeroed. A general allocator hands back recycled memory and clears it
//! byte by byte: 16% of a counter simulation was that memset (perf, 2026-11-22). Fresh anonymous
//! pages from the kernel are zero already, and only the few pages a contract touches are ever
//! materialized, so zeroed blocks of `DIRECT_MIN` bytes or more are mapped and unmapped directly.
//! Which blocks are mapped is kept in a set: their sizes alone cannot tell them from large blocks
//! mimalloc served.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::collections::BTreeSet;
use std::ptr::null_mut;
use std::sync::Mutex;

const DIRECT_MIN: usize = 256 * 1024;
const PAGE: usize = 4096;

pub struct HostAllocator;

/// Addresses of the blocks mapped directly (a handful at a time: one per live VM).
static MAPPED: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn mapped() -> std::sync::MutexGuard<'static, BTreeSet<usize>> {
    MAPPED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

unsafe fn map(size: usize) -> *mut u8 {
    let p = libc::mmap(null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
    if p == libc::MAP_FAILED {
        return null_mut();
    }
    mapped().insert(p as usize);
    p as *mut u8
}

/// Unmaps `ptr` if it is a directly mapped block; false if mimalloc owns it.
unsafe fn unmap(ptr: *mut u8, size: usize) -> bool {
    if size < DIRECT_MIN || !mapped().remove(&(ptr as usize)) {
        return false;
    }
    libc::munmap(ptr as *mut libc::c_void, size);
    true
}

unsafe impl GlobalAlloc for HostAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        MiMalloc.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= DIRECT_MIN && layout.align() <= PAGE {
            return map(layout.size());
        }
        MiMalloc.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !unmap(ptr, layout.size()) {
            MiMalloc.dealloc(ptr, layout);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let is_mapped = layout.size() >= DIRECT_MIN && mapped().contains(&(ptr as usize));
        if !is_mapped {
            return MiMalloc.realloc(ptr, layout, new_size);
        }
        if new_size >= DIRECT_MIN {
            // a growing linear memory: the kernel moves the pages, and new ones are zero
            let moved = libc::mremap(ptr as *mut libc::c_void, layout.size(), new_size, libc::MREMAP_MAYMOVE);
            if moved == libc::MAP_FAILED {
                return null_mut();
            }
            let mut set = mapped();
            set.remove(&(ptr as usize));
            set.insert(moved as usize);
            return moved as *mut u8;
        }
        let smaller = MiMalloc.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
        if !smaller.is_null() {
            std::ptr::copy_nonoverlapping(ptr, smaller, new_size);
            unmap(ptr, layout.size());
        }
        smaller
    }
}
