//! ragrank-vector: exact vector top-k in pure Rust (no napi).
//!
//! - `kernels`: dot products with runtime CPU-feature dispatch.
//! - `index`: a snapshot: chunks of rows with tombstones, ids, validation, merge planning.
//! - `chunk`: an immutable run of rows (f32, f16, or int8 or sign bits plus f32 originals, or sign
//!   bits plus int8 codes) and their ids.
//! - `shared`: the published snapshot readers take without waiting, and the writers' side.
//! - `search`: single-query scans and the blocked batch search.
//! - `share`: chunks of one call shared by the calling thread and the pool.
//! - `fields`, `select`: metadata and text per row, and the rows a filter allows.
//! - `persist`: the one-file format, loadable by memory map.
pub mod chunk;
pub mod column;
pub mod fields;
pub mod index;
pub mod kernels;
pub mod persist;
pub mod search;
pub mod select;
mod share;
pub mod shared;

pub use index::{Config, MergePlan, Metric, NewFields, Shortlist, Storage, VectorIndex};
pub use ragrank_core::topk::Hit;
pub use search::SearchOptions;
pub use shared::SharedIndex;
