//! The napi binding: converts types and errors, and schedules work. No algorithms here.
pub mod bm25;
pub mod errors;
pub mod eval;
pub mod hits;
pub mod onnx;
pub mod split;
pub mod vector;
