//! Hierarchical splitting with Haystack's unit and window rules, as byte ranges of the input.
//!
//! Every node is a contiguous range of its document: units are contiguous and cover the text,
//! and a window is a run of units. So the binding returns offsets only and JS slices the
//! original string (which keeps lone surrogates intact).
pub mod offsets;
pub mod sentence;
pub mod tree;
pub mod units;
pub mod window;

pub use tree::{split_document, Node, SplitConfig};
pub use units::{load_tokenizer, Unit};
