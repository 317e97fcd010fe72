//! `NativeSplitter`: the hierarchical splitter. Nodes cross as columns of offsets and
//! structure; `lib/splitter.ts` slices the texts from the caller's own strings and builds
//! ids and objects, so no chunk text crosses the boundary.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Int32Array, Uint32Array};
use napi_derive::napi;
use ragrank_split::tree::split_documents;
use ragrank_split::{load_tokenizer, Node, SplitConfig, Unit};

use crate::cancel::CancelToken;
use crate::errors::{guard, OrNapi};
use crate::task::BlockingTask;

#[napi(object)]
pub struct NativeSplitOptions {
    pub block_sizes: Vec<u32>,
    pub overlap: u32,
    pub split_by: String,
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
            let tokenizer = match (options.split_by.as_str(), options.tokenizer.as_deref()) {
                ("token", Some(path)) => Some(load_tokenizer(path).or_napi()?),
                _ => None,
            };
            let unit = Unit::parse(&options.split_by, tokenizer).or_napi()?;
            let config = SplitConfig::new(&options.block_sizes, options.overlap, unit).or_napi()?;
            Ok(NativeSplitter {
                config: Arc::new(config),
            })
        })
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
