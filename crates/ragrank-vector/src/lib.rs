//! ragrank-vector: exact vector top-k in pure Rust (no napi).
//!
//! - `kernels`: dot products with runtime CPU-feature dispatch.
//! - `config`: the settings (dim, metric, storage, rescore, shortlist) and int8 quantization.
//! - `index`: a snapshot: chunks of rows with tombstones, ids, validation, merge planning.
//! - `chunk`: an immutable run of rows (f32, f16, or int8 or sign bits plus f32 originals, or sign
//!   bits plus int8 codes) and their ids.
//! - `shared`: the published snapshot readers take without waiting, and the writers' side.
//! - `search`: single-query scans and the blocked batch search.
//! - `pool`: the search pools, and the chunks of one call shared by the calling thread and a pool.
//! - `fields`, `select`: metadata and text per row, and the rows a filter allows.
//! - `persist`: the one-file format, loadable by memory map.
//! - `directory`: the index bound to a durable directory (chunk files, commits, the log).
pub mod chunk;
pub mod column;
pub mod config;
pub mod directory;
pub mod fields;
pub mod index;
pub mod kernels;
pub mod persist;
mod pool;
pub mod search;
pub mod select;
pub mod shared;

pub use config::{Config, Metric, Rescore, Shortlist, Storage};
pub use index::{MatchedRow, MergePlan, NewFields, VectorIndex};
pub use ragrank_core::topk::Hit;
pub use search::SearchOptions;
pub use shared::SharedIndex;
