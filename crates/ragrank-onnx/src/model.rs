//! A BERT-style encoder on ONNX Runtime: cross-encoder scores and pooled embeddings.
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use ragrank_core::{check_cancel, Error, ErrorKind, Result};
use rayon::prelude::*;
use tokenizers::Tokenizer;

use crate::batching::{self, Batch, PaddingSide};
use crate::pooling::{pool, Pooling};
use crate::runtime;
use crate::text::{Encoded, TextEncoder};

/// The files of a model, resolved by the caller (local folder or hub cache).
#[derive(Debug, Clone)]
pub struct ModelPaths {
    pub model: PathBuf,
    pub tokenizer: PathBuf,
    pub tokenizer_config: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy)]
pub struct EncoderOptions {
    /// Cap on tokens per input; the model's own limits apply too.
    pub max_length: Option<usize>,
    /// Intra-op threads per session (of its own pool; unused with `shared_pool`).
    pub threads: usize,
    /// Sessions that run batches in parallel.
    pub sessions: usize,
    /// Run on the process-wide intra-op pool (every core, shared by all such sessions) instead of
    /// a pool of `threads` per session: one run alone uses every core, concurrent runs share them.
    pub shared_pool: bool,
    /// Let a session's own intra-op threads spin between operators instead of sleeping.
    pub spinning: bool,
    /// Split a call's batches so that every session gets one when it planned fewer.
    pub spread: bool,
}

/// How one call batches its inputs.
#[derive(Debug, Clone, Copy)]
pub struct BatchOptions {
    pub max_batch: usize,
    pub token_budget: usize,
    /// A tighter token cap than the model's for this call.
    pub max_length: Option<usize>,
    pub padding: PaddingSide,
}

pub struct Encoder {
    sessions: Vec<Mutex<Session>>,
    next_session: AtomicUsize,
    spread: bool,
    text: TextEncoder,
    feeds_type_ids: bool,
    /// Decoder exports (Qwen3, transformers.js) take `position_ids` as an input.
    feeds_position_ids: bool,
    output: String,
    /// Effective maximum tokens per input.
    pub max_length: usize,
    /// Width of the output's last axis: labels of a classifier, hidden size of an encoder.
    pub width: usize,
    /// Rank of the output: 2 for `[batch, labels]`, 3 for `[batch, seq, hidden]`.
    pub output_rank: usize,
}

/// Every graph input ragrank knows how to fill; a model needing any other fails at load, not at first use.
const FED_INPUTS: [&str; 4] = ["input_ids", "attention_mask", "token_type_ids", "position_ids"];

fn read_json(path: &Option<PathBuf>) -> Result<Option<serde_json::Value>> {
    let Some(p) = path else { return Ok(None) };
    let bytes = std::fs::read(p).map_err(|e| model_missing(p, &e.to_string()))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::new(ErrorKind::ModelLoad, format!("{} is not valid JSON: {e}", p.display())))
}

fn model_missing(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorKind::ModelNotFound,
        format!("cannot read {}: {why}", path.display()),
    )
}

fn load_error(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::ModelLoad, what.to_string())
}

fn run_error(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Inference, format!("inference failed: {what}"))
}

/// Model types whose position ids start after the padding index (`padding_idx + 1`, as
/// `create_position_ids_from_input_ids` in transformers): their `max_position_embeddings` (514, 8194)
/// counts `pad_token_id + 1` rows no input token can use, so 512 / 8192 tokens fit, not 514 / 8194.
const OFFSET_POSITION_TYPES: &[&str] = &[
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "longformer",
    "mpnet",
    "data2vec-text",
    "roberta-prelayernorm",
];

/// A positive integer setting of a config, if present and plausible (HF writes `1e30` for "unbounded").
fn usize_key(v: &Option<serde_json::Value>, key: &str) -> Option<usize> {
    v.as_ref()
        .and_then(|v| v.get(key))
        .and_then(|x| x.as_f64())
        .filter(|x| (2.0..1e7).contains(x))
        .map(|x| x as usize)
}

/// Tokens the model's position table can take, from `config.json`.
fn position_limit(cfg: &Option<serde_json::Value>) -> Option<usize> {
    let positions = usize_key(cfg, "max_position_embeddings")?;
    let model_type = cfg.as_ref().and_then(|c| c.get("model_type")).and_then(|t| t.as_str());
    let offset = match model_type {
        Some(t) if OFFSET_POSITION_TYPES.contains(&t) => {
            let pad = cfg
                .as_ref()
                .and_then(|c| c.get("pad_token_id"))
                .and_then(|p| p.as_u64())
                .unwrap_or(1) as usize;
            pad + 1
        }
        _ => 0,
    };
    positions.checked_sub(offset).filter(|&n| n >= 2)
}

/// Tokens per input: the caller's `cap` (an explicit option, or sentence-transformers'
/// `max_seq_length`) if given, else the tokenizer's `model_max_length`; either way clamped to
/// what the position table holds. 512 when nothing says.
fn effective_max_length(
    cap: Option<usize>,
    tok_cfg: &Option<serde_json::Value>,
    cfg: &Option<serde_json::Value>,
) -> usize {
    let wanted = cap.or_else(|| usize_key(tok_cfg, "model_max_length"));
    [wanted, position_limit(cfg)].into_iter().flatten().min().unwrap_or(512)
}

impl Encoder {
    pub fn load(paths: &ModelPaths, opts: &EncoderOptions) -> Result<Encoder> {
        let env = runtime::environment()?;
        for p in [&paths.model, &paths.tokenizer] {
            if !p.is_file() {
                return Err(model_missing(p, "no such file"));
            }
        }
        let tok_cfg = read_json(&paths.tokenizer_config)?;
        let cfg = read_json(&paths.config)?;
        let max_length = effective_max_length(opts.max_length, &tok_cfg, &cfg);
        let tokenizer = Tokenizer::from_file(&paths.tokenizer)
            .map_err(|e| load_error(format!("cannot load tokenizer {}: {e}", paths.tokenizer.display())))?;
        let text = TextEncoder::new(tokenizer, max_length)?;

        let mut sessions = Vec::new();
        for _ in 0..opts.sessions.max(1) {
            let session = Session::builder(env)
                .and_then(|b| {
                    b.with_optimization_level(GraphOptimizationLevel::All)
                        .map_err(Into::into)
                })
                .and_then(|b| {
                    if opts.shared_pool {
                        return Ok(b);
                    }
                    b.with_independent_thread_pool()
                        .map_err(Into::into)
                        .and_then(|b| b.with_intra_threads(opts.threads.max(1)).map_err(Into::into))
                        .and_then(|b| b.with_intra_op_spinning(opts.spinning).map_err(Into::into))
                })
                // In a model that carries its shapes (value_info, as quantizers and many exports
                // write), ORT fuses residual Add + LayerNormalization into SkipLayerNormalization,
                // whose CPU kernel is slower than the two ops it replaces. Measured (Zen 5) on the rerank
                // benchmark model with shapes, -16% pairs/s (int8) and -6% (fp32) at length 256.
                .and_then(|b| {
                    b.with_config_entry("optimization.disable_specified_optimizers", "SkipLayerNormFusion")
                        .map_err(Into::into)
                })
                .and_then(|mut b| b.commit_from_file(&paths.model))
                .map_err(|e| load_error(format!("cannot load ONNX model {}: {e}", paths.model.display())))?;
            sessions.push(Mutex::new(session));
        }
        let first = sessions[0].lock().unwrap_or_else(|p| p.into_inner());
        let inputs: Vec<&str> = first.inputs().iter().map(|i| i.name()).collect();
        for needed in ["input_ids", "attention_mask"] {
            if !inputs.contains(&needed) {
                return Err(load_error(format!(
                    "the model has no `{needed}` input (inputs: {})",
                    inputs.join(", ")
                )));
            }
        }
        let unfed: Vec<&str> = inputs.iter().copied().filter(|n| !FED_INPUTS.contains(n)).collect();
        if !unfed.is_empty() {
            let hint = if unfed.iter().any(|n| n.starts_with("past_key_values")) {
                " (an export with a KV cache, for text generation: export the model without one, e.g. with `ragrank convert`)"
            } else {
                ""
            };
            return Err(load_error(format!(
                "the model has inputs ragrank does not feed: {}{hint}",
                unfed.join(", ")
            )));
        }
        let feeds_type_ids = inputs.contains(&"token_type_ids");
        let feeds_position_ids = inputs.contains(&"position_ids");
        let outputs: Vec<&str> = first.outputs().iter().map(|o| o.name()).collect();
        let output = ["logits", "sentence_embedding", "last_hidden_state", "token_embeddings"]
            .into_iter()
            .find(|n| outputs.contains(n))
            .or(outputs.first().copied())
            .ok_or_else(|| load_error("the model has no outputs"))?
            .to_string();
        drop(first);
        let mut encoder = Encoder {
            sessions,
            next_session: AtomicUsize::new(0),
            spread: opts.spread,
            text,
            feeds_type_ids,
            feeds_position_ids,
            output,
            max_length,
            width: 0,
            output_rank: 0,
        };
        encoder.probe()?;
        Ok(encoder)
    }

    /// Two tiny runs with the tokenizer's largest id, of 2 and 3 tokens: learn the output shape, refuse an
    /// output whose width follows the input length (it would pass as a classifier of that many labels), and
    /// catch a tokenizer whose vocabulary does not fit the model's embeddings.
    fn probe(&mut self) -> Result<()> {
        let probe_run = |len: usize| {
            let mut ids = vec![self.text.pad_id.max(0); len];
            ids[0] = self.text.max_token_id() as i64;
            let probe = Encoded {
                ids,
                type_ids: vec![0; len],
            };
            let batch = Batch { items: vec![0], len };
            self.run_unchecked(&[probe], &batch, PaddingSide::Right).map_err(|e| {
                load_error(format!(
                    "the model failed on a probe input; does the tokenizer match the model? ({})",
                    e.message
                ))
            })
        };
        let (shape, _) = probe_run(2)?;
        let rank = shape.len();
        let width = *shape.last().unwrap_or(&0);
        if !(2..=3).contains(&rank) || width <= 0 {
            return Err(load_error(format!(
                "unexpected output `{}` of shape {:?}",
                self.output, shape
            )));
        }
        // A position table of 2 cannot take the second probe.
        if self.max_length >= 3 {
            let (longer, _) = probe_run(3)?;
            if longer.len() != rank || longer.last() != Some(&width) {
                return Err(load_error(format!(
                    "the output `{}` changes shape with the input length ({shape:?} for 2 tokens, {longer:?} for 3): \
                     its last axis must be the labels or the hidden size",
                    self.output
                )));
            }
        }
        self.output_rank = rank;
        self.width = width as usize;
        Ok(())
    }

    /// Runs one padded batch and returns the output's values, of the shape the probe learned
    /// (`[rows, width]` or `[rows, tokens, width]`), else `ERR_INFERENCE` naming both shapes.
    fn run(&self, encoded: &[Encoded], batch: &Batch, side: PaddingSide) -> Result<Vec<f32>> {
        let (shape, data) = self.run_unchecked(encoded, batch, side)?;
        let rows = batch.items.len() as i64;
        let expected: Vec<i64> = match self.output_rank {
            2 => vec![rows, self.width as i64],
            _ => vec![rows, batch.len as i64, self.width as i64],
        };
        let count = expected.iter().product::<i64>() as usize;
        if shape != expected || data.len() != count {
            return Err(run_error(format!(
                "the output `{}` has shape {shape:?} for a batch of {rows} inputs of {} tokens, expected {expected:?}",
                self.output, batch.len
            )));
        }
        Ok(data)
    }

    /// Runs one padded batch and returns the output's shape and values, as the model gave them.
    fn run_unchecked(&self, encoded: &[Encoded], batch: &Batch, side: PaddingSide) -> Result<(Vec<i64>, Vec<f32>)> {
        let padded = batching::pad(encoded, batch, self.text.pad_id, side);
        let shape = [batch.items.len(), batch.len];
        let tensor = |v: Vec<i64>| Tensor::from_array((shape, v)).map_err(run_error);
        let mut inputs: Vec<(Cow<str>, SessionInputValue)> = vec![
            ("input_ids".into(), tensor(padded.ids)?.into()),
            ("attention_mask".into(), tensor(padded.mask)?.into()),
        ];
        if self.feeds_type_ids {
            inputs.push(("token_type_ids".into(), tensor(padded.type_ids)?.into()));
        }
        if self.feeds_position_ids {
            inputs.push(("position_ids".into(), tensor(padded.positions)?.into()));
        }
        let mut session = self.free_session();
        let outputs = session.run(inputs).map_err(run_error)?;
        let (shape, data) = outputs[self.output.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(run_error)?;
        Ok((shape.iter().copied().collect(), data.to_vec()))
    }

    /// A session no other batch is running on, else (all busy) the next in turn to wait for: a
    /// plain turn could make a worker wait for a busy session while another one stands free.
    fn free_session(&self) -> MutexGuard<'_, Session> {
        let n = self.sessions.len();
        let first = self.next_session.fetch_add(1, Ordering::Relaxed);
        for k in 0..n {
            match self.sessions[(first + k) % n].try_lock() {
                Ok(session) => return session,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        self.sessions[first % n].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tokenises in parallel, plans batches, runs them (in parallel across sessions), and
    /// hands each batch's output to `take` with the batch and the unpadded input lengths.
    fn run_all(
        &self,
        encode: impl Fn(usize) -> Result<Encoded> + Sync,
        n: usize,
        opts: &BatchOptions,
        cancel: &AtomicBool,
        take: impl Fn(&Batch, &[usize], &[f32]) -> Result<()> + Sync,
    ) -> Result<()> {
        let encoded: Vec<Encoded> = (0..n).into_par_iter().map(&encode).collect::<Result<_>>()?;
        let lengths: Vec<usize> = encoded.iter().map(|e| e.ids.len()).collect();
        let mut batches = batching::plan(&lengths, opts.max_batch.max(1), opts.token_budget.max(1));
        if self.spread {
            batching::balance(&mut batches, &lengths, self.sessions.len());
        }
        let next = AtomicUsize::new(0);
        let worker = || -> Result<()> {
            loop {
                check_cancel(cancel)?;
                let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return Ok(());
                };
                let data = self.run(&encoded, batch, opts.padding)?;
                take(batch, &lengths, &data)?;
            }
        };
        let workers = self.sessions.len().min(batches.len()).max(1);
        if workers == 1 {
            return worker();
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(worker)).collect();
            handles
                .into_iter()
                .try_for_each(|h| h.join().unwrap_or_else(|_| Err(run_error("a worker panicked"))))
        })
    }

    /// `run_all` for `width` output values per input, gathered in input order, with the text
    /// encoder `opts` asks for: `fill(dst, row, len, seq, data)` writes the input that is row
    /// `row` of a batch's output `data` (`seq` tokens per row; `len` its unpadded length) into `dst`.
    /// A value that is not finite (NaN, infinity) is `ERR_INFERENCE`: it would sort and compare as no score does.
    fn run_rows(
        &self,
        n: usize,
        width: usize,
        opts: &BatchOptions,
        cancel: &AtomicBool,
        encode: impl Fn(&TextEncoder, usize) -> Result<Encoded> + Sync,
        fill: impl Fn(&mut [f32], usize, usize, usize, &[f32]) + Sync,
    ) -> Result<Vec<f32>> {
        let text = self.text_for(opts)?;
        let text = text.as_ref().unwrap_or(&self.text);
        let out = Mutex::new(vec![0f32; n * width]);
        self.run_all(
            |i| encode(text, i),
            n,
            opts,
            cancel,
            |batch, lengths, data| {
                let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
                for (row, &i) in batch.items.iter().enumerate() {
                    let dst = &mut out[i * width..(i + 1) * width];
                    fill(dst, row, lengths[i], batch.len, data);
                    if let Some(bad) = dst.iter().find(|x| !x.is_finite()) {
                        return Err(run_error(format!(
                            "the output `{}` is {bad} for input {i} (not a finite number)",
                            self.output
                        )));
                    }
                }
                Ok(())
            },
        )?;
        Ok(out.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// One relevance score per (query, document) pair, in input order: the logit of a
    /// one-label model, or the log-odds `logit[1] - logit[0]` of a two-label model (so a
    /// sigmoid of it is the softmax probability of the positive label).
    pub fn score_pairs(&self, pairs: &[(&str, &str)], opts: &BatchOptions, cancel: &AtomicBool) -> Result<Vec<f32>> {
        if self.output_rank != 2 || self.width > 2 {
            return Err(load_error(format!(
                "this model's output `{}` is not a 1- or 2-label classifier (width {}, rank {})",
                self.output, self.width, self.output_rank
            )));
        }
        let width = self.width;
        self.run_rows(
            pairs.len(),
            1,
            opts,
            cancel,
            |text, i| text.pair(pairs[i].0, pairs[i].1),
            |dst, row, _, _, data| {
                let logits = &data[row * width..(row + 1) * width];
                dst[0] = if width == 1 { logits[0] } else { logits[1] - logits[0] };
            },
        )
    }

    /// Embeddings of `texts`, row-major `n x dim`, in input order. Token vectors are pooled over
    /// the unpadded tokens of each row, wherever `opts.padding` put them.
    pub fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        normalize: bool,
        opts: &BatchOptions,
        cancel: &AtomicBool,
    ) -> Result<(Vec<f32>, usize)> {
        let (dim, rank, side) = (self.width, self.output_rank, opts.padding);
        let out = self.run_rows(
            texts.len(),
            dim,
            opts,
            cancel,
            |text, i| text.single(texts[i]),
            |dst, row, len, seq, data| {
                if rank == 2 {
                    dst.copy_from_slice(&data[row * dim..(row + 1) * dim]);
                } else {
                    let start = row * seq + side.start(len, seq);
                    pool(&data[start * dim..(start + len) * dim], dim, len, pooling, dst);
                }
                if normalize {
                    let norm = dst.iter().map(|x| x * x).sum::<f32>().sqrt();
                    if norm > 0.0 {
                        dst.iter_mut().for_each(|x| *x /= norm);
                    }
                }
            },
        )?;
        Ok((out, dim))
    }

    /// A text encoder for a call that asks for a shorter maximum length.
    fn text_for(&self, opts: &BatchOptions) -> Result<Option<TextEncoder>> {
        match opts.max_length {
            Some(m) if m < self.max_length => {
                if m < 2 {
                    return Err(Error::invalid(format!("maxLength must be at least 2, got {m}")));
                }
                Ok(Some(self.text.with_max_length(m)))
            }
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod max_length_tests {
    use super::effective_max_length;
    use serde_json::json;

    fn max_len(cap: Option<usize>, tok: serde_json::Value, cfg: serde_json::Value) -> usize {
        effective_max_length(cap, &Some(tok), &Some(cfg))
    }

    #[test]
    fn offset_positions_leave_room_for_the_padding_index() {
        let unbounded = json!({ "model_max_length": 1e30 });
        let xlmr = json!({ "model_type": "xlm-roberta", "max_position_embeddings": 514, "pad_token_id": 1 });
        assert_eq!(max_len(None, unbounded.clone(), xlmr), 512);
        let m3 = json!({ "model_type": "xlm-roberta", "max_position_embeddings": 8194, "pad_token_id": 1 });
        assert_eq!(max_len(None, json!({}), m3), 8192);
        let roberta = json!({ "model_type": "roberta", "max_position_embeddings": 514 });
        assert_eq!(
            max_len(None, unbounded.clone(), roberta),
            512,
            "pad_token_id defaults to 1"
        );
        let bert = json!({ "model_type": "bert", "max_position_embeddings": 512 });
        assert_eq!(max_len(None, unbounded, bert), 512, "BERT positions start at 0");
    }

    #[test]
    fn a_cap_replaces_model_max_length_but_not_the_position_limit() {
        let tok = json!({ "model_max_length": 64 });
        let bert = json!({ "model_type": "bert", "max_position_embeddings": 128 });
        assert_eq!(max_len(None, tok.clone(), bert.clone()), 64);
        assert_eq!(max_len(Some(100), tok.clone(), bert.clone()), 100);
        assert_eq!(max_len(Some(16), tok.clone(), bert.clone()), 16);
        assert_eq!(max_len(Some(4096), tok, bert), 128, "clamped to the positions");
        assert_eq!(effective_max_length(None, &None, &None), 512);
        assert_eq!(effective_max_length(Some(1000), &None, &None), 1000);
    }
}
