//! The process's allocator, and how it treats memory it has freed.
//!
//! The only `unsafe` in the command: one call into mimalloc's C API, which
//! the `mimalloc` crate does not wrap.
#![allow(unsafe_code)]

/// The server allocates and frees many small buffers per bet (JSON, journal
/// entries, socket frames); mimalloc does that with far less time than the
/// system allocator under load (measured in docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay`, 15th in mimalloc v3's option list (`mimalloc.h`),
/// which the bindings do not name. The test below holds it to that option.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the memory the process frees for its own reuse, instead of handing
/// it back to the operating system once it has lain free for a second
/// (mimalloc's default). A server under load frees and takes again megabytes
/// a second (a round's settlement, its journal entry, its events): each page
/// handed back was faulted in and zeroed again by the kernel when next used,
/// 1,300 faults a second and a twentieth of the server's processor time at
/// 20,000 bets a second (docs/benchmarks.md). The cost is that the process
/// keeps the most memory it has needed at once until it exits.
///
/// Call before any other thread starts: mimalloc's options are not thread safe.
pub fn keep_freed_memory() {
    // SAFETY: `mi_option_set` takes two integers, touches no memory of ours,
    // and is called before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn purge_delay() -> std::os::raw::c_long {
        // SAFETY: reads an option; the test harness sets none on other threads.
        unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
    }

    /// The option at index 15 is the purge delay: its default, 1000 ms, is
    /// the only option in mimalloc v3 that defaults to 1000, and a release of
    /// mimalloc that moved it would fail here before the server ran with the
    /// wrong option set.
    #[test]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge_delay(), 1000, "index 15 is not mimalloc's purge delay");
        }
        keep_freed_memory();
        assert_eq!(purge_delay(), -1, "the purge delay did not take");
    }
}
