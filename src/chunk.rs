//! The pages' wasm chunk as any module sees it: how to write a function whose body runs inside
//! it ([`in_pages_chunk!`]), what a call returns when the chunk does not arrive ([`ChunkError`],
//! [`InChunk`]), and whether it has arrived ([`arrived`], [`until_arrived`]).
//!
//! Release builds (`--cfg console_split`, scripts/build-console.sh) mark each function written
//! with `in_pages_chunk!` as a split point: `wasm_split` (Leptos's re-export of
//! `wasm_split_helpers`) turns it into an `async fn` that fetches the pages' chunk on its first
//! call, and the linker step (crates/wasm-split-link) cuts the chunk out of the main module.
//! Dev builds are not split: the same function is a plain `async fn`, so `trunk serve` needs no
//! extra tool. What the chunk holds, and when it is fetched, is `pages::lazy`'s business; this
//! module names no page and no state, so any module can split a function off.

use std::sync::atomic::{AtomicBool, Ordering};

/// A page's code could not be fetched or instantiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkError;

impl From<leptos::wasm_split::SplitLoaderError> for ChunkError {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        ChunkError
    }
}

/// A future made inside the chunk (a split function itself cannot be `async`).
pub type InChunk<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T>>>;

/// Writes once, for both builds, a function whose body runs inside the pages' chunk: release
/// builds (`console_split`) mark it as a split point, which `wasm_split` turns into an
/// `async fn` that fetches the chunk on its first call (`fallible`: a chunk that does not arrive
/// is an `Err`, not a panic); dev builds have the same body as a plain `async fn`. With
/// `preload(name);`, `name` is an `async fn` that only fetches the chunk (nothing to fetch in
/// dev builds). A split function cannot be `async` itself: one that awaits returns an
/// [`InChunk`] future made inside the chunk. Its error type must be `From<SplitLoaderError>`
/// ([`ChunkError`] is). Used from any module as `crate::chunk::in_pages_chunk!`.
macro_rules! in_pages_chunk {
    (
        $(preload($preload:ident);)?
        $(#[$attr:meta])*
        $(pub $(($($restrict:tt)+))?)? fn $name:ident($($arg:ident: $arg_type:ty),* $(,)?) -> $output:ty $body:block
    ) => {
        $(#[$attr])*
        #[cfg(console_split)]
        #[::leptos::wasm_split::wasm_split(
            pages,
            wasm_split_path = ::leptos::wasm_split,
            fallible
            $(, preload($preload))?
        )]
        $(pub $(($($restrict)+))?)? fn $name($($arg: $arg_type),*) -> $output $body

        $(#[$attr])*
        #[cfg(not(console_split))]
        $(pub $(($($restrict)+))?)? async fn $name($($arg: $arg_type),*) -> $output $body

        $(
            #[cfg(not(console_split))]
            async fn $preload() -> Result<(), ::leptos::wasm_split::SplitLoaderError> {
                Ok(())
            }
        )?
    };
}
pub(crate) use in_pages_chunk;

/// Whether the pages' chunk has arrived, for code without the app's context.
static PAGES_ARRIVED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Settles when the pages' chunk arrives ([`mark_arrived`] calls the function): what
    /// [`until_arrived`] awaits.
    static ARRIVAL: (js_sys::Promise, js_sys::Function) = {
        let mut settle = None;
        let arrival = js_sys::Promise::new(&mut |resolve, _reject| settle = Some(resolve));
        (arrival, settle.expect("a promise calls its executor at once"))
    };
}

/// Notes that the pages' chunk has arrived (its preload, or a split function, answered).
pub fn mark_arrived() {
    if !PAGES_ARRIVED.swap(true, Ordering::Relaxed) {
        ARRIVAL.with(|(_, settle)| settle.call0(&wasm_bindgen::JsValue::UNDEFINED).ok());
    }
}

/// Whether the pages' chunk has arrived.
pub fn arrived() -> bool {
    PAGES_ARRIVED.load(Ordering::Relaxed)
}

/// Resolves once the pages' chunk has arrived, as it would anyway (`pages::lazy`'s preload):
/// work of the first screen that needs the chunk waits for it with this, so it never fetches the
/// chunk sooner, over a slow link, than the first screen's own requests. It goes on as the
/// chunk arrives: what waits in memory until then (the request log's first exchanges, a balance
/// reading) is lost if the page goes first.
pub async fn until_arrived() {
    if arrived() {
        return;
    }
    let arrival = ARRIVAL.with(|(arrival, _)| arrival.clone());
    // The promise is never rejected.
    let _ = wasm_bindgen_futures::JsFuture::from(arrival).await;
}
