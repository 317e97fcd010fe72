//! An index bound to a directory: commit, reopen, log replay, readers, damage.
use std::path::PathBuf;
use std::time::Duration;

use ragrank_core::bm25::directory::{DurabilityMode, OpenOptions};
use ragrank_core::bm25::{Bm25Index, NewDoc, Query, SearchOptions};
use ragrank_core::ErrorKind;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ragrank-dir-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn doc(i: usize) -> NewDoc {
    NewDoc {
        id: format!("d{i}"),
        text: Some(format!("common word{} group{} shared text", i, i % 10)),
        meta: Some(serde_json::json!({ "tenant": format!("t{}", i % 3) })),
        ..Default::default()
    }
}

fn open(dir: &std::path::Path, durability: DurabilityMode) -> Bm25Index {
    Bm25Index::open(
        dir,
        OpenOptions {
            durability,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Ids and scores of a query, in order.
fn results(index: &Bm25Index, q: &str) -> Vec<(String, u32)> {
    let snap = index.snapshot();
    snap.search(
        &Query::Text(q),
        &SearchOptions {
            top_k: 1000,
            ..Default::default()
        },
    )
    .into_iter()
    .map(|h| (snap.doc(h.slot).id.to_string(), h.score.to_bits()))
    .collect()
}

#[test]
fn a_committed_index_reopens_with_the_same_results_as_the_one_in_memory() {
    let dir = temp("reopen");
    let memory = Bm25Index::new(Default::default()).unwrap();
    {
        let index = open(&dir, DurabilityMode::Commit);
        for round in 0..4 {
            let docs: Vec<NewDoc> = (round * 50..round * 50 + 50).map(doc).collect();
            index.add(docs.clone(), false).unwrap();
            memory.add(docs, false).unwrap();
            let gone: Vec<String> = (0..round * 50).step_by(7).map(|i| format!("d{i}")).collect();
            index.remove(&gone).unwrap();
            memory.remove(&gone).unwrap();
            index.commit().unwrap();
        }
        assert_eq!(results(&index, "common group3"), results(&memory, "common group3"));
        // A second writer is refused while this one lives.
        let err = Bm25Index::open(&dir, OpenOptions::default()).err().unwrap();
        assert_eq!(err.kind, ErrorKind::Locked);
    }
    let index = open(&dir, DurabilityMode::Commit);
    assert_eq!(index.len(), memory.len());
    for q in ["common group3", "word17 shared", "text"] {
        assert_eq!(results(&index, q), results(&memory, q), "{q}");
    }
    // Only the files of the last two commits remain.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names.iter().filter(|n| n.starts_with("manifest-")).count(),
        2,
        "{names:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writes_after_the_last_commit_come_back_from_the_log_and_not_without_it() {
    for (durability, kept) in [
        (DurabilityMode::Sync, true),
        (DurabilityMode::Async(Duration::from_millis(5)), true),
        (DurabilityMode::Commit, false),
    ] {
        let dir = temp("log");
        {
            let index = open(&dir, durability);
            index.add((0..20).map(doc).collect(), false).unwrap();
            index.commit().unwrap();
            index.add((20..30).map(doc).collect(), false).unwrap();
            index.remove(&["d3".into(), "d25".into()]).unwrap();
            index
                .add(
                    vec![NewDoc {
                        text: Some("replaced".into()),
                        ..doc(4)
                    }],
                    true,
                )
                .unwrap();
            // Dropped without a commit: a crash, as far as the directory can tell.
        }
        let index = open(&dir, DurabilityMode::Commit);
        let expect = if kept { 28 } else { 20 };
        assert_eq!(index.len(), expect, "{durability:?}");
        assert!(!index.contains("d25"));
        assert_eq!(index.contains("d22"), kept);
        assert_eq!(index.contains("d3"), !kept);
        assert_eq!(results(&index, "replaced").len(), kept as usize);
        // Committed, the log is no longer needed: a reopen without it gives the same index.
        index.commit().unwrap();
        drop(index);
        assert!(!std::fs::read_dir(&dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("wal-")));
        assert_eq!(open(&dir, DurabilityMode::Commit).len(), expect);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_reader_sees_the_writers_commits_when_it_reloads() {
    let dir = temp("reader");
    let writer = open(&dir, DurabilityMode::Commit);
    writer.add((0..10).map(doc).collect(), false).unwrap();
    writer.commit().unwrap();
    let reader = Bm25Index::open(
        &dir,
        OpenOptions {
            read_only: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(reader.len(), 10);
    writer.add((10..15).map(doc).collect(), false).unwrap();
    writer.remove(&["d0".into()]).unwrap();
    assert!(!reader.reload().unwrap(), "nothing committed yet");
    writer.commit().unwrap();
    assert!(reader.reload().unwrap());
    assert_eq!(reader.len(), 14);
    assert_eq!(results(&reader, "common word12"), results(&writer, "common word12"));
    assert_eq!(reader.commit().err().unwrap().kind, ErrorKind::ReadOnly);
    // A second reader in this process: its own view, refreshed on its own.
    let second = Bm25Index::open(
        &dir,
        OpenOptions {
            read_only: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(second.len(), 14);
    writer.add((15..20).map(doc).collect(), false).unwrap();
    writer.commit().unwrap();
    assert!(second.reload().unwrap());
    assert_eq!((second.len(), reader.len()), (19, 14));
    assert!(reader.reload().unwrap());
    assert_eq!(reader.len(), 19);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_must_agree_with_the_directorys_and_damage_is_named() {
    let dir = temp("damage");
    let opts = |json: serde_json::Value| OpenOptions {
        options: Some(json),
        ..Default::default()
    };
    {
        let index = Bm25Index::open(&dir, opts(serde_json::json!({ "storeText": false }))).unwrap();
        index.add((0..10).map(doc).collect(), false).unwrap();
        index.commit().unwrap();
    }
    let err = Bm25Index::open(&dir, opts(serde_json::json!({ "storeText": true })))
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidArg);
    assert!(err.message.contains("storeText"), "{}", err.message);
    // Omitted options take the recorded ones.
    assert!(!open(&dir, DurabilityMode::Commit).config().store_text);
    let seg = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "bm25"))
        .unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&seg, &bytes).unwrap();
    let err = Bm25Index::open(&dir, OpenOptions::default()).err().unwrap();
    assert_eq!(err.kind, ErrorKind::CorruptIndex);
    assert!(
        err.message.contains(seg.file_name().unwrap().to_str().unwrap()),
        "{}",
        err.message
    );
    std::fs::remove_file(&seg).unwrap();
    let err = Bm25Index::open(&dir, OpenOptions::default()).err().unwrap();
    assert_eq!(err.kind, ErrorKind::CorruptIndex);
    assert!(err.message.contains("missing"), "{}", err.message);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_id_removed_then_added_again_before_a_refresh_is_no_duplicate_and_replays() {
    let dir = temp("readd");
    let again = || NewDoc {
        text: Some("again".into()),
        ..doc(1)
    };
    {
        let index = open(&dir, DurabilityMode::Sync);
        index.set_refresh_interval(None);
        index.add(vec![doc(1)], false).unwrap();
        // The removal is staged, not yet visible: the add after it must count it.
        index.stage_remove(&["d1".into()]).unwrap();
        let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, vec![again()]).unwrap();
        assert_eq!(index.stage_add(prepared, false).unwrap(), 1);
        // A staged add makes the next one a duplicate all the same.
        let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, vec![doc(1)]).unwrap();
        assert_eq!(
            index.stage_add(prepared, false).unwrap_err().kind,
            ErrorKind::DuplicateId
        );
        index.refresh();
        assert_eq!(results(&index, "again").len(), 1);
    }
    // The log's replay stages the same writes, without a refresh between them.
    let index = open(&dir, DurabilityMode::Commit);
    assert_eq!(index.len(), 1);
    assert_eq!(results(&index, "again").len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_commit_that_failed_before_its_manifest_leaves_no_segment_number_taken_twice() {
    let dir = temp("failed-commit");
    let index = open(&dir, DurabilityMode::Commit);
    index.add((0..10).map(doc).collect(), false).unwrap();
    let committed = index.commit().unwrap();
    index.add((10..20).map(doc).collect(), false).unwrap();
    // The next manifest's name taken by a directory: its rename fails, after the segment file is written.
    let blocker = dir.join(ragrank_core::store::manifest::manifest_file(committed.generation + 1));
    std::fs::create_dir(&blocker).unwrap();
    assert!(index.commit().is_err());
    index.add((20..30).map(doc).collect(), false).unwrap();
    std::fs::remove_dir(&blocker).unwrap();
    let m = index.commit().unwrap();
    let numbers: Vec<u64> = m.indexes["bm25"].iter().map(|e| e.segment).collect();
    let mut distinct = numbers.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(numbers, distinct, "segment numbers {numbers:?}");
    let expected = results(&index, "common shared");
    index.close().unwrap();
    let reopened = open(&dir, DurabilityMode::Commit);
    assert_eq!(reopened.len(), 30);
    assert_eq!(results(&reopened, "common shared"), expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Everything a reader can see of an index: hits (ids, score bits) with and without a
/// metadata filter, each live document's stored fields in order, the id lookups, matching
/// and the counts of `stats`.
fn assert_same(index: &Bm25Index, memory: &Bm25Index) {
    let (a, b) = (index.snapshot(), memory.snapshot());
    let tenant = ragrank_core::filter::MetaFilter::compile(&serde_json::json!({ "tenant": "t1" }), "filter").unwrap();
    for q in ["common group3", "word17 shared", "text", "replaced words"] {
        assert_eq!(results(index, q), results(memory, q), "{q}");
        let filtered = |snap: &ragrank_core::bm25::Snapshot| -> Vec<(String, u32)> {
            let opts = SearchOptions {
                top_k: 1000,
                filter: Some(ragrank_core::bm25::Filter {
                    slots: None,
                    meta: Some(tenant.clone()),
                }),
                ..Default::default()
            };
            snap.search(&Query::Text(q), &opts)
                .into_iter()
                .map(|h| (snap.doc(h.slot).id.to_string(), h.score.to_bits()))
                .collect()
        };
        assert_eq!(filtered(&a), filtered(&b), "{q} filtered");
    }
    assert!(a.docs().eq(b.docs()), "stored documents differ");
    for d in b.docs() {
        assert_eq!(a.get(d.id), Some(d.clone()));
    }
    assert_eq!(a.get("d-unknown"), None);
    assert_eq!(a.matching_ids(&tenant), b.matching_ids(&tenant));
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!(
        (sa.documents, sa.terms, sa.postings, sa.avg_doc_length),
        (sb.documents, sb.terms, sb.postings, sb.avg_doc_length)
    );
}

#[test]
fn a_reopened_index_reads_filters_merges_and_removes_as_the_one_in_memory() {
    let dir = temp("mapped");
    let memory = Bm25Index::new(Default::default()).unwrap();
    memory.set_refresh_interval(None);
    {
        let index = open(&dir, DurabilityMode::Commit);
        for round in 0..3 {
            let docs: Vec<NewDoc> = (round * 100..round * 100 + 100).map(doc).collect();
            index.add(docs.clone(), false).unwrap();
            memory.add(docs, false).unwrap();
            index.commit().unwrap();
        }
        let gone: Vec<String> = (0..300).step_by(11).map(|i| format!("d{i}")).collect();
        index.remove(&gone).unwrap();
        memory.remove(&gone).unwrap();
        index.commit().unwrap();
    }
    // Reopened: the segments are mapped, some with removed documents.
    let index = open(&dir, DurabilityMode::Commit);
    // Its arrays and texts are read from the files in place, not copied to the heap.
    let heap = |i: &Bm25Index| i.snapshot().stats().memory_bytes;
    assert!(
        heap(&index) * 2 < heap(&memory),
        "{} vs {}",
        heap(&index),
        heap(&memory)
    );
    assert_same(&index, &memory);
    index.snapshot().verify().unwrap();

    // Removals and an upsert after the reopen.
    let gone: Vec<String> = ["d5", "d150", "d299", "d-unknown"].map(String::from).to_vec();
    assert_eq!(index.remove(&gone).unwrap(), memory.remove(&gone).unwrap());
    let upsert = vec![NewDoc {
        text: Some("replaced words".into()),
        ..doc(7)
    }];
    index.add(upsert.clone(), true).unwrap();
    memory.add(upsert, true).unwrap();
    assert_same(&index, &memory);

    // A removal decided on a snapshot of mapped segments still applies after a merge moved
    // the documents (it keeps their identity), and skips the one upserted since.
    let never = std::sync::atomic::AtomicBool::new(false);
    let t2 = ragrank_core::filter::MetaFilter::compile(&serde_json::json!({ "tenant": "t2" }), "filter").unwrap();
    let matched = index.snapshot().matching(&t2, &never, &mut Vec::new()).unwrap();
    let expected = matched.len() - 1;
    let replaced = matched[0].id.to_string();
    let again = vec![NewDoc {
        text: Some("replaced again".into()),
        ..doc(replaced[1..].parse().unwrap())
    }];
    index.add(again.clone(), true).unwrap();
    memory.add(again, true).unwrap();
    index.force_merge();
    assert_eq!(index.remove_matched(matched, &never).unwrap(), expected);
    let mut gone: Vec<String> = memory
        .snapshot()
        .matching_ids(&t2)
        .iter()
        .map(|id| id.to_string())
        .collect();
    gone.retain(|id| *id != replaced);
    memory.remove(&gone).unwrap();
    assert!(index.contains(&replaced));
    assert_same(&index, &memory);

    // The merged segment commits and reopens mapped again.
    index.commit().unwrap();
    drop(index);
    let index = open(&dir, DurabilityMode::Commit);
    assert_eq!(index.snapshot().segments().len(), 1);
    assert_same(&index, &memory);
    std::fs::remove_dir_all(&dir).unwrap();
}
