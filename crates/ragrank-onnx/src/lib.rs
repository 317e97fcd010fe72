//! ragrank-onnx: cross-encoder scoring and text embeddings on ONNX Runtime.
//!
//! The runtime library is loaded at run time (`ort`'s `load-dynamic`), from a path the
//! caller resolves; nothing is downloaded at build or install time.
pub mod batching;
pub mod model;
pub mod pooling;
pub mod runtime;
pub mod text;

pub use batching::PaddingSide;
pub use model::{Encoder, EncoderOptions, ModelPaths};
pub use pooling::Pooling;
