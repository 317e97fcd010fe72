//! Probes for the benchmarks only, built with `--features bench` (`npm run build:bench`);
//! the default build leaves them out so the published surface is what `lib/` uses.
use napi_derive::napi;
use ragrank_vector::kernels::{self, Kernels};

/// The kernel set this CPU runs (`avx512`, `avx2`, `neon` or `scalar`).
#[napi]
pub fn vector_kernel_isa() -> String {
    format!("{:?}", Kernels::best().isa).to_lowercase()
}

/// Best-of-`repeats` read bandwidth in GB/s of a STREAM-like sum over `megabytes` of f64,
/// on one thread or on rayon's pool: the bound a single-query scan is measured against.
#[napi]
pub fn vector_read_bandwidth(megabytes: u32, parallel: bool, repeats: u32) -> f64 {
    kernels::read_bandwidth(megabytes as usize * (1 << 20), parallel, repeats.max(1) as usize)
}
