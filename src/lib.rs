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
