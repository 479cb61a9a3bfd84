//! The module's allocator (talc), and its memory grown in large steps, not
//! a page at a time.
//!
//! talc replaces Rust's default wasm allocator (dlmalloc): a well-kept
//! allocator made for wasm, whose code is 2.2 KB of the module (1.6 KB less
//! gzipped than with dlmalloc), and which fed the viewer's core a 1 GB
//! journal (a message's text made and freed per message) 2-4% faster.
//!
//! Either asks for memory with `memory.grow` by exactly what one allocation
//! lacks, rounded up to a 64 KiB page. A state
//! built of many small strings (a Claude Code session's messages, the
//! viewer's transcript) so grows memory tens of thousands of times, and
//! each `memory.grow` costs the engine a few milliseconds once the memory
//! is large (V8 replaces the memory's ArrayBuffer and accounts the growth
//! to its garbage collector): `rebuildState` of a 50 MB Claude Code file
//! took 3.4 s in `finish` against 0.36 s natively, and of 1 GB, 216 s
//! before it ran out of memory. Measured with `new WebAssembly.Memory`
//! alone: 8,000 one-page grows take 17 s in Node 20.
//!
//! So whenever an allocation has grown the memory, the wrapper grows it
//! once more by an eighth of its size (at least 16 MiB) by allocating that
//! much and freeing it at once: talc extends its heap over the new pages and
//! keeps the freed block as free space (it never gives memory back on
//! wasm), and the allocations after it are carved from there. The number of grows is
//! then logarithmic in the memory's size, as a Vec's reallocations are.
//! The pages reserved and not yet used are never touched, so they cost the
//! host address space, not resident memory; near the 4 GiB limit the
//! reservation shrinks and then stops, so it never takes memory an
//! allocation needs.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

/// The allocator the wrapper passes every call to. Single-threaded wasm
/// (no `atomics`): talc's unsynchronised cell is sound here, as `Ahead`'s is.
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

const PAGE: usize = 64 * 1024;
/// wasm32's 4 GiB, in pages.
const MAX_PAGES: usize = 65536;
/// The least step: 256 pages, 16 MiB.
const MIN_STEP: usize = 256;

/// Past this much memory (3.5 GiB) a whole-input call stops with
/// ERR_INPUT_TOO_LARGE at its next chunk: a failed allocation aborts the
/// module (wasm has no unwinding), so the calls check before they reach
/// the end of the address space. An 8 MiB chunk of input grows the state by
/// far less than the 512 MiB left.
const SOFT_PAGES: usize = 57344;

/// Whether the module's memory is near wasm32's 4 GiB (see SOFT_PAGES).
pub(super) fn near_limit() -> bool {
    pages() >= SOFT_PAGES
}

pub struct Ahead {
    /// Set while the wrapper's own reservation runs (its grow is not another reason to reserve).
    reserving: Cell<bool>,
}

// wasm32-unknown-unknown without the atomics feature has one thread: the
// allocator is never entered from two at once.
unsafe impl Sync for Ahead {}

#[global_allocator]
static ALLOCATOR: Ahead = Ahead { reserving: Cell::new(false) };

fn pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

impl Ahead {
    /// `allocate`, then the reservation when it grew the memory.
    #[inline(always)]
    fn watching(&self, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
        let before = pages();
        let p = allocate();
        if pages() != before {
            self.reserve();
        }
        p
    }

    /// Called after an allocation grew the memory.
    #[cold]
    #[inline(never)]
    fn reserve(&self) {
        if self.reserving.replace(true) {
            return;
        }
        let now = pages();
        let room = MAX_PAGES.saturating_sub(now);
        // Never more than half of what is left: the rest stays for allocations that need it whole.
        let step = (now / 8).max(MIN_STEP).min(room / 2);
        if step >= 16 {
            // Less than the step by the allocator's bookkeeping, so it grows by the step, not one page more.
            if let Ok(layout) = Layout::from_size_align(step * PAGE - PAGE, 16) {
                // SAFETY: a non-zero size; the block is freed with the layout it was allocated with.
                unsafe {
                    let p = TALC.alloc(layout);
                    if !p.is_null() {
                        TALC.dealloc(p, layout);
                    }
                }
            }
        }
        self.reserving.set(false);
    }
}

// SAFETY: every call is passed to TALC unchanged; the reservation is a
// TALC allocation freed at once with its own layout.
// Not inlined: every allocation site calls these, and inlined, the allocator's
// entry was copied into each (+21 KB gzipped).
unsafe impl GlobalAlloc for Ahead {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.watching(|| TALC.alloc(layout))
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.watching(|| TALC.alloc_zeroed(layout))
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        TALC.dealloc(ptr, layout)
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.watching(|| TALC.realloc(ptr, layout, new_size))
    }
}
