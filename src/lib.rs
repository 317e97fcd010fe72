//! The napi binding: converts types and errors, and schedules work. No algorithms here.
#[cfg(feature = "bench")]
pub mod bench;
pub mod bm25;
pub mod cancel;
pub mod errors;
pub mod eval;
pub mod hits;
pub mod onnx;
pub mod split;
pub mod task;
pub mod vector;

/// Every Rust allocation of the addon goes to mimalloc, whose cross-thread frees are lock-free pushes: with glibc,
/// the reaper and merge threads freeing what the event loop allocated took the loop's arena lock, and the loop slept
/// on it in `malloc` (up to 66 ms in a 1M-document index with a writer). The core crates stay allocator-agnostic;
/// N-API, V8 and onnxruntime still allocate through the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
