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

#[cfg(all(feature = "mimalloc", feature = "jemalloc"))]
compile_error!("features `mimalloc` and `jemalloc` are exclusive: one global allocator");

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
