//! ragrank-vector: exact vector top-k in pure Rust (no napi).
//!
//! - `kernels`: dot products with runtime CPU-feature dispatch.
//! - `index`: the rows (f32, f16 or int8 plus f32 originals), ids and their validation.
//! - `search`: single-query scans and the blocked batch search.
//! - `share`: chunks of one call shared by the calling thread and the pool.
//! - `fields`, `select`: metadata and text per row, and the rows a filter allows.
//! - `persist`: the one-file format, loadable by memory map.
pub mod column;
pub mod fields;
pub mod index;
pub mod kernels;
pub mod persist;
pub mod search;
pub mod select;
mod share;

pub use index::{Config, Metric, NewFields, Storage, VectorIndex};
pub use ragrank_core::topk::Hit;
pub use search::SearchOptions;
