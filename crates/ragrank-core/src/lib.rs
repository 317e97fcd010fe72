//! ragrank-core: the retrieval algorithms of ragrank, in pure Rust (no napi).
pub mod analysis;
pub mod atomic;
pub mod background;
pub mod bm25;
pub mod checksummed;
pub mod error;
pub mod eval;
pub mod fields;
pub mod filter;
pub mod model_file;
pub mod names;
pub mod store;
pub mod topk;

pub use error::{check_cancel, Error, ErrorKind, Result};
