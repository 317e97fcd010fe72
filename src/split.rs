//! `NativeSplitter`: the hierarchical splitter. Nodes cross as columns of offsets and
//! structure; `lib/splitter.ts` slices the texts from the caller's own strings and builds
//! ids and objects, so no chunk text crosses the boundary.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Int32Array, Uint32Array};
use napi_derive::napi;
use ragrank_split::tree::split_documents;
use ragrank_split::{Node, SplitConfig};

use crate::cancel::CancelToken;
use crate::errors::{guard, OrNapi};
use crate::task::BlockingTask;

/// The caller's options; ranges, names and defaults are checked and filled in by
/// `SplitConfig::from_options` (signed, so a negative number gets a range message).
#[napi(object)]
pub struct NativeSplitOptions {
    pub block_sizes: Vec<i64>,
    pub overlap: Option<i64>,
    pub split_by: Option<String>,
    /// Path of a `tokenizer.json`, for `splitBy: "token"`.
    pub tokenizer: Option<String>,
}

/// All nodes of all documents, flat, in output order. `parent` is an index into these
/// columns (-1 for a root); `start`/`end` are UTF-16 offsets into the document `doc`.
#[napi(object)]
pub struct NativeSplit {
    pub doc: Uint32Array,
    pub start: Uint32Array,
    pub end: Uint32Array,
    pub level: Uint32Array,
    pub block_size: Uint32Array,
    pub parent: Int32Array,
}

#[napi]
pub struct NativeSplitter {
    config: Arc<SplitConfig>,
}

#[napi]
impl NativeSplitter {
    #[napi(constructor)]
    pub fn new(options: NativeSplitOptions) -> napi::Result<Self> {
        guard(|| {
            let config = SplitConfig::from_options(
                &options.block_sizes,
                options.overlap,
                options.split_by.as_deref(),
                options.tokenizer.as_deref(),
            )
            .or_napi()?;
            Ok(NativeSplitter {
                config: Arc::new(config),
            })
        })
    }

    /// The distinct block sizes, largest first.
    #[napi(getter)]
    pub fn block_sizes(&self) -> Vec<u32> {
        self.config.block_sizes().iter().map(|&b| b as u32).collect()
    }

    #[napi(getter)]
    pub fn overlap(&self) -> u32 {
        self.config.overlap() as u32
    }

    #[napi(getter)]
    pub fn split_by(&self) -> &'static str {
        self.config.unit().name()
    }

    #[napi]
    pub fn split(&self, texts: Vec<String>) -> napi::Result<NativeSplit> {
        guard(|| {
            let nodes = split_documents(&texts, &self.config, &AtomicBool::new(false)).or_napi()?;
            Ok(to_columns(nodes))
        })
    }

    #[napi(ts_return_type = "Promise<NativeSplit>")]
    pub fn split_async(
        &self,
        texts: Vec<String>,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<NativeSplit>> {
        let config = self.config.clone();
        BlockingTask::spawn(cancel, move |cancel| {
            Ok(to_columns(split_documents(&texts, &config, cancel).or_napi()?))
        })
    }
}

fn to_columns(docs: Vec<Vec<Node>>) -> NativeSplit {
    let n: usize = docs.iter().map(Vec::len).sum();
    let (mut doc, mut start, mut end) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut level, mut block_size, mut parent) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for (d, nodes) in docs.into_iter().enumerate() {
        let base = start.len() as i32;
        for node in nodes {
            doc.push(d as u32);
            start.push(node.start);
            end.push(node.end);
            level.push(node.level);
            block_size.push(node.block_size);
            parent.push(node.parent.map_or(-1, |p| base + p as i32));
        }
    }
    NativeSplit {
        doc: Uint32Array::new(doc),
        start: Uint32Array::new(start),
        end: Uint32Array::new(end),
        level: Uint32Array::new(level),
        block_size: Uint32Array::new(block_size),
        parent: Int32Array::new(parent),
    }
}
