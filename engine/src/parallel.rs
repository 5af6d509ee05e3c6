//! Independent work over a slice, on every core of a native build: a large dump's items read,
//! and its MemberClusters decoded, one run of them per thread. In order, and on the calling
//! thread alone in the browser and wherever a thread cannot start.

/// The stack of a worker thread: the main thread's, so that what reads there reads in any
/// thread (the readers recurse into nested input up to their depth limit).
const STACK: usize = 8 << 20;

/// The fewest items a thread is given: below that, starting it costs more than it saves.
const MIN_ITEMS: usize = 64;

/// The most threads used: a CI runner may report dozens of cores, and each thread started
/// and each allocator heap it leaves costs more than the few items it would read.
const MAX_THREADS: usize = 8;

/// `f` of each item, in the items' order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(items.len() / MIN_ITEMS)
            .min(MAX_THREADS)
    };
    let run = |run: &[T]| -> Vec<R> { run.iter().map(&f).collect() };
    if threads <= 1 {
        return run(items);
    }
    let runs: Vec<&[T]> = items.chunks(items.len().div_ceil(threads)).collect();
    std::thread::scope(|scope| {
        // Every run but the first in a thread of its own; a run whose thread cannot start is
        // done here.
        let others: Vec<_> = runs
            .iter()
            .skip(1)
            .map(|&r| {
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(scope, move || run(r))
                    .map_err(|_| r)
            })
            .collect();
        let mut out = Vec::with_capacity(items.len());
        out.extend(runs.first().map(|&r| run(r)).unwrap_or_default());
        for other in others {
            out.extend(match other {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(r) => run(r),
            });
        }
        out
    })
}

#[cfg(test)]
mod tests {
    /// Results come in the items' order, whatever the number of runs.
    #[test]
    fn results_are_in_order() {
        for n in [0, 1, 63, 64, 127, 128, 129, 1000, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let seen = std::sync::Mutex::new(std::collections::HashSet::new());
            let out = super::map(&items, |&i| {
                if let Ok(mut s) = seen.lock() {
                    s.insert(std::thread::current().id());
                }
                i * 2
            });
            assert_eq!(out, (0..n).map(|i| i * 2).collect::<Vec<_>>());
            let threads = seen.lock().map(|s| s.len()).unwrap_or_default();
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            let expected = match n {
                0 => 0,
                n if n < 2 * super::MIN_ITEMS => 1,
                n => cores.min(n / super::MIN_ITEMS).min(super::MAX_THREADS),
            };
            assert_eq!(threads, expected, "{n} items");
        }
    }
}
