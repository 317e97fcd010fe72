//! A vector index bound to a directory: commit, reopen, log replay, readers, damage, and a
//! directory shared with a BM25 index.
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use ragrank_core::filter::MetaFilter;
use ragrank_core::ErrorKind;
use ragrank_vector::directory::{self, DurabilityMode, OpenOptions};
use ragrank_vector::{Config, Metric, NewFields, SearchOptions, SharedIndex, Storage, VectorIndex};
use serde_json::json;

#[allow(dead_code)]
mod common;

const DIM: usize = 16;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ragrank-vecdir-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn open_with(
    dir: &Path,
    durability: DurabilityMode,
    options: serde_json::Value,
) -> ragrank_core::Result<Arc<SharedIndex>> {
    directory::open(
        dir,
        OpenOptions {
            options: Some(options),
            durability,
            read_only: false,
        },
    )
}

fn open(dir: &Path, durability: DurabilityMode) -> Arc<SharedIndex> {
    open_with(dir, durability, json!({ "dim": DIM, "metric": "l2" })).unwrap()
}

fn reader(dir: &Path) -> Arc<SharedIndex> {
    directory::open(
        dir,
        OpenOptions {
            read_only: true,
            ..Default::default()
        },
    )
    .unwrap()
}

fn ids(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("v{i}")).collect()
}

fn fields(range: std::ops::Range<usize>) -> NewFields {
    NewFields {
        metas: range
            .clone()
            .map(|i| Some(json!({ "tenant": format!("t{}", i % 3) })))
            .collect(),
        texts: range.map(|i| Some(format!("text {i}"))).collect(),
    }
}

fn add(index: &Arc<SharedIndex>, range: std::ops::Range<usize>, upsert: bool) {
    let data = common::random(range.len(), DIM, range.start as u64 + 7);
    index.add(&ids(range.clone()), &data, fields(range), upsert).unwrap();
}

/// Ids and score bits of a query, best first.
fn results(index: &SharedIndex) -> Vec<(String, u32)> {
    let snap = index.snapshot();
    let q = common::random(1, DIM, 999);
    let opts = SearchOptions {
        top_k: 10_000,
        ..Default::default()
    };
    let hits = snap.search(&q, &opts).unwrap();
    hits.iter()
        .map(|h| (snap.id(h.slot).to_string(), h.score.to_bits()))
        .collect()
}

fn files(dir: &Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

#[test]
fn a_committed_index_reopens_with_bit_identical_scores_and_mapped_chunks() {
    let dir = temp("reopen");
    let config = Config {
        dim: DIM,
        metric: Metric::L2,
        storage: Storage::F32,
    };
    let memory = SharedIndex::new(VectorIndex::new(config).unwrap());
    {
        let index = open(&dir, DurabilityMode::Commit);
        for round in 0..4 {
            let range = round * 40..round * 40 + 40;
            add(&index, range.clone(), false);
            add(&memory, range, false);
            let gone = ids(0..round * 40).into_iter().step_by(7).collect::<Vec<_>>();
            index.remove(&gone).unwrap();
            memory.remove(&gone).unwrap();
            index.commit().unwrap();
        }
        add(&index, 10..15, true);
        add(&memory, 10..15, true);
        let m = index.commit().unwrap();
        assert!(!m.indexes["vectors"].is_empty());
        assert_eq!(results(&index), results(&memory));
    }
    assert!(!files(&dir, ".vec").is_empty());
    let index = open_with(&dir, DurabilityMode::Commit, json!({})).unwrap();
    assert!(index.snapshot().is_mapped(), "chunks are read from their mapped files");
    assert_eq!(index.snapshot().len(), memory.snapshot().len());
    assert_eq!(results(&index), results(&memory));
    let snap = index.snapshot();
    let slot = snap.slot_of("v41").unwrap();
    assert_eq!(snap.fields().text(slot), Some("text 41"));
    assert_eq!(snap.fields().meta(slot), Some(&json!({ "tenant": "t2" })));
    // The recorded options: none needed at open.
    let settings = index.recorded_settings().unwrap();
    assert_eq!(
        (settings["dim"].clone(), settings["metric"].clone()),
        (json!(DIM), json!("l2"))
    );
    drop((index, snap));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn durability_commit_keeps_only_committed_writes_and_sync_and_async_replay_the_log() {
    for (name, durability, replayed) in [
        ("commit", DurabilityMode::Commit, false),
        ("sync", DurabilityMode::Sync, true),
        ("async", DurabilityMode::Async(Duration::from_millis(5)), true),
    ] {
        let dir = temp(&format!("durability-{name}"));
        let before;
        {
            let index = open(&dir, durability);
            add(&index, 0..20, false);
            index.commit().unwrap();
            add(&index, 20..30, false);
            index.remove(&ids(0..3)).unwrap();
            add(&index, 5..8, true);
            let rows = index.snapshot().matching(
                &MetaFilter::compile(&json!({ "tenant": "t1" }), "filter").unwrap(),
                &AtomicBool::new(false),
                &mut Vec::new(),
            );
            assert!(!rows.unwrap().is_empty());
            let n = index
                .remove_matching(
                    &MetaFilter::compile(&json!({ "tenant": "t1" }), "filter").unwrap(),
                    &AtomicBool::new(false),
                )
                .unwrap();
            assert!(n > 0);
            before = results(&index);
            // Dropped without a commit: as a process that died.
        }
        let index = open(&dir, durability);
        if replayed {
            assert_eq!(
                results(&index),
                before,
                "{name}: the logged writes are replayed in order"
            );
        } else {
            assert_eq!(index.snapshot().len(), 20, "{name}: only the commit survives");
            assert!(!index.snapshot().contains("v25"));
        }
        // Closed, not dropped: a background merge of the replayed removals may still be committing.
        index.close().unwrap();
        drop(index);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_reader_sees_new_commits_at_reload_and_takes_no_writes() {
    let dir = temp("reader");
    let writer = open(&dir, DurabilityMode::Commit);
    add(&writer, 0..10, false);
    writer.commit().unwrap();
    let r = reader(&dir);
    assert_eq!(r.snapshot().len(), 10);
    add(&writer, 10..25, false);
    writer.remove(&ids(0..2)).unwrap();
    assert!(!r.reload().unwrap(), "uncommitted writes are not seen");
    writer.commit().unwrap();
    assert!(r.reload().unwrap());
    assert_eq!(results(&r), results(&writer));
    let data = common::random(1, DIM, 1);
    let e = r.add(&ids(100..101), &data, NewFields::default(), false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ReadOnly);
    assert_eq!(r.remove(&ids(3..4)).unwrap_err().kind, ErrorKind::ReadOnly);
    assert_eq!(r.snapshot().len(), 23, "a refused write changes nothing");
    assert_eq!(r.commit().unwrap_err().kind, ErrorKind::ReadOnly);
    drop((writer, r));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_that_differ_from_the_recorded_ones_are_named() {
    let dir = temp("options");
    let e = open_with(&dir, DurabilityMode::Commit, json!({})).err().unwrap();
    assert!(e.message.contains("options.dim"), "{}", e.message);
    drop(
        open_with(
            &dir,
            DurabilityMode::Commit,
            json!({ "dim": DIM, "storage": "int8", "fields": { "tenant": "keyword" } }),
        )
        .unwrap(),
    );
    let e = open_with(
        &dir,
        DurabilityMode::Commit,
        json!({ "dim": 8, "metric": "dot", "storage": "int8" }),
    )
    .err()
    .unwrap();
    assert_eq!(e.kind, ErrorKind::InvalidArg);
    assert!(e.message.contains("options dim, metric differ"), "{}", e.message);
    let e = open_with(
        &dir,
        DurabilityMode::Commit,
        json!({ "fields": { "tenant": "number" } }),
    )
    .err()
    .unwrap();
    assert!(e.message.contains("options fields differ"), "{}", e.message);
    let e = open_with(&dir, DurabilityMode::Commit, json!({ "dims": 8 }))
        .err()
        .unwrap();
    assert!(e.message.contains("unknown options: dims"), "{}", e.message);
    let same = json!({ "dim": DIM, "metric": "cosine", "storage": "int8", "fields": { "tenant": "keyword" } });
    let index = open_with(&dir, DurabilityMode::Commit, same).unwrap();
    assert_eq!(index.snapshot().config().storage, Storage::Int8);
    drop(index);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_or_missing_chunk_file_is_corrupt_index_naming_it() {
    let dir = temp("damage");
    {
        let index = open(&dir, DurabilityMode::Commit);
        add(&index, 0..30, false);
        index.commit().unwrap();
    }
    let seg = files(&dir, ".vec").pop().unwrap();
    let path = dir.join(&seg);
    let bytes = std::fs::read(&path).unwrap();
    // A flipped byte in the rows: open checks the layout, not the whole file's CRC; `verify` does.
    let mut flipped = bytes.clone();
    let at = flipped.len() - 200;
    flipped[at] ^= 0x10;
    std::fs::write(&path, &flipped).unwrap();
    {
        let index = open(&dir, DurabilityMode::Commit);
        let e = index.verify().err().unwrap();
        assert_eq!(e.kind, ErrorKind::CorruptIndex);
        assert!(e.message.contains(&seg), "{}", e.message);
    }
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    let e = open_with(&dir, DurabilityMode::Commit, json!({})).err().unwrap();
    assert_eq!(e.kind, ErrorKind::CorruptIndex);
    assert!(e.message.contains(&seg), "{}", e.message);
    std::fs::remove_file(&path).unwrap();
    let e = open_with(&dir, DurabilityMode::Commit, json!({})).err().unwrap();
    assert_eq!(e.kind, ErrorKind::CorruptIndex);
    assert!(
        e.message.contains(&seg) && e.message.contains("missing"),
        "{}",
        e.message
    );
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(
        open_with(&dir, DurabilityMode::Commit, json!({}))
            .unwrap()
            .snapshot()
            .len(),
        30
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bm25_and_a_vector_index_on_one_path_share_the_directory_and_one_commit() {
    use ragrank_core::bm25::directory::OpenOptions as Bm25Open;
    use ragrank_core::bm25::{Bm25Index, NewDoc};
    let dir = temp("shared");
    {
        let text = Bm25Index::open(&dir, Bm25Open::default()).unwrap();
        let vectors = open(&dir, DurabilityMode::Commit);
        assert!(Arc::ptr_eq(&text.directory().unwrap(), &vectors.directory().unwrap()));
        text.add(
            (0..5)
                .map(|i| NewDoc {
                    id: format!("v{i}"),
                    text: Some(format!("hello {i}")),
                    ..Default::default()
                })
                .collect(),
            false,
        )
        .unwrap();
        add(&vectors, 0..5, false);
        // One commit, through the BM25 index, holds both.
        let m = text.commit().unwrap();
        assert_eq!(m.indexes["bm25"].len(), 1);
        assert_eq!(m.indexes["vectors"].iter().map(|e| e.docs).sum::<u64>(), 5);
    }
    let text = Bm25Index::open(&dir, Bm25Open::default()).unwrap();
    let vectors = open_with(&dir, DurabilityMode::Commit, json!({})).unwrap();
    assert_eq!(text.len(), 5);
    assert!(text.contains("v3"));
    assert_eq!(vectors.snapshot().len(), 5);
    drop((text, vectors));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_background_merge_commits_and_the_merged_chunks_files_go() {
    let dir = temp("merge-commits");
    {
        let index = open(&dir, DurabilityMode::Commit);
        for round in 0..4 {
            add(&index, round * 50..round * 50 + 50, false);
            index.commit().unwrap();
        }
        index.close().unwrap();
    }
    // Reopened, the chunks are mapped: a merge of them runs in the background, not in the writer's call.
    let index = open(&dir, DurabilityMode::Commit);
    let before = index.directory().unwrap().manifest();
    let chunks = |m: &ragrank_core::store::manifest::Manifest| m.indexes.get("vectors").map_or(0, Vec::len);
    add(&index, 200..250, false);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let committed = loop {
        let m = index.directory().unwrap().manifest();
        if m.generation > before.generation && chunks(&m) < chunks(&before) {
            break m;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no merge was committed: {} chunks at generation {}",
            chunks(&m),
            m.generation
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Committed without a commit() call, the added row included; the files of the merged chunks are gone
    // once a later commit no longer keeps the manifest before.
    let rows: u64 = committed.indexes["vectors"].iter().map(|e| e.docs - e.deleted).sum();
    assert_eq!(rows, 250);
    add(&index, 250..251, false);
    index.commit().unwrap();
    let m = index.directory().unwrap().manifest();
    let named: Vec<String> = m.indexes["vectors"]
        .iter()
        .map(|e| format!("seg-{}.vec", e.segment))
        .collect();
    let kept: Vec<String> = committed.indexes["vectors"]
        .iter()
        .map(|e| format!("seg-{}.vec", e.segment))
        .collect();
    for f in files(&dir, ".vec") {
        assert!(
            named.contains(&f) || kept.contains(&f),
            "{f} is named by neither of the two newest manifests"
        );
    }
    index.close().unwrap();
    assert_eq!(open(&dir, DurabilityMode::Commit).snapshot().len(), 251);
    std::fs::remove_dir_all(&dir).unwrap();
}
