//! Crash tests with real processes. A writer (this test binary run again, see `CHILD`) adds,
//! removes, commits and merges with durability `Sync` and is killed with SIGKILL at a random
//! moment, round after round on one directory: after each kill the directory must open, hold
//! every write the writer saw return and no document it saw removed, and the next commit must
//! leave no file that no kept manifest needs. Then damage made by hand: a leftover temporary
//! manifest, a damaged manifest, a torn log tail, a segment or deletion file missing or
//! damaged.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use ragrank_core::bm25::directory::{DurabilityMode, OpenOptions};
use ragrank_core::bm25::{Bm25Index, NewDoc, Query, SearchOptions};
use ragrank_core::store::manifest::{manifest_file, Manifest};
use ragrank_core::store::wal;
use ragrank_core::ErrorKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Set in the environment of the re-executed test binary: it runs the writer, not the test.
const CHILD: &str = "RAGRANK_CRASH_CHILD";
const CRASH_TEST: &str = "kill_9_at_random_moments_loses_no_acknowledged_write";
/// What the writer prints once its index is open.
const READY: &str = "crash-writer-ready";
/// Ids are drawn from `d0..d<IDS>`: few enough that ids are removed and added again often.
const IDS: u64 = 300;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ragrank-crash-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn open(dir: &Path, durability: DurabilityMode) -> ragrank_core::Result<Bm25Index> {
    Bm25Index::open(
        dir,
        OpenOptions {
            durability,
            ..Default::default()
        },
    )
}

/// The text of version `ver` of document `id` (versions are unique over the whole run).
fn text_of(id: &str, ver: u64) -> String {
    format!("common {id} t{} v{ver}", ver % 7)
}

fn doc(id: &str, ver: u64) -> NewDoc {
    NewDoc {
        id: id.to_string(),
        text: Some(text_of(id, ver)),
        ..Default::default()
    }
}

/// One write of the writer, as its acknowledgement file records it.
#[derive(Debug, Clone)]
enum Op {
    /// (id, version) pairs, added or upserted in one call.
    Add(Vec<(String, u64)>),
    Remove(Vec<String>),
    Commit,
    Merge,
}

impl Op {
    fn line(&self) -> String {
        match self {
            Op::Add(docs) => {
                let docs: Vec<String> = docs.iter().map(|(id, v)| format!("{id}:{v}")).collect();
                format!("add {}", docs.join(" "))
            }
            Op::Remove(ids) => format!("remove {}", ids.join(" ")),
            Op::Commit => "commit".into(),
            Op::Merge => "merge".into(),
        }
    }

    fn parse(line: &str) -> Op {
        let mut words = line.split(' ');
        match words.next().unwrap() {
            "add" => Op::Add(
                words
                    .map(|w| {
                        let (id, v) = w.split_once(':').unwrap();
                        (id.to_string(), v.parse().unwrap())
                    })
                    .collect(),
            ),
            "remove" => Op::Remove(words.map(str::to_string).collect()),
            "commit" => Op::Commit,
            "merge" => Op::Merge,
            other => panic!("unknown op {other:?}"),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Op::Add(_) => "add",
            Op::Remove(_) => "remove",
            Op::Commit => "commit",
            Op::Merge => "merge",
        }
    }

    /// The documents (id to version) after this op.
    fn apply(&self, state: &mut BTreeMap<String, u64>) {
        match self {
            Op::Add(docs) => docs.iter().for_each(|(id, v)| {
                state.insert(id.clone(), *v);
            }),
            Op::Remove(ids) => ids.iter().for_each(|id| {
                state.remove(id);
            }),
            Op::Commit | Op::Merge => {}
        }
    }
}

/// The writer: random writes until it is killed. Before each op it notes `begin <op>` in the
/// acknowledgement file, after the call returned `ok`: an op with its `ok` line is one the
/// caller was told is done, so it must survive; the one op begun and not acknowledged may or
/// may not have happened. Each line is one `write` to a file opened with O_APPEND and not
/// fsync'd: the file must survive the death of this process, not of the machine, and a
/// SIGKILL leaves what `write` put in the page cache.
fn writer(dir: &Path, ack: &Path, seed: u64) -> ! {
    let mut rng = StdRng::seed_from_u64(seed);
    let index = open(dir, DurabilityMode::Sync).unwrap();
    let mut file = fs::OpenOptions::new().create(true).append(true).open(ack).unwrap();
    let mut note = |line: &str| file.write_all(format!("{line}\n").as_bytes()).unwrap();
    println!("{READY}");
    std::io::stdout().flush().unwrap();
    // Unique over the run: the seed differs per round.
    let mut ver = seed << 24;
    let commit_every = rng.random_range(3..25);
    let started = Instant::now();
    for n in 1u64.. {
        // Never outlive a parent that died before its kill.
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the writer was not killed"
        );
        let roll = rng.random_range(0..100);
        let op = if n % commit_every == 0 {
            Op::Commit
        } else if roll < 6 {
            Op::Merge
        } else if roll < 35 {
            let ids: Vec<String> = (0..rng.random_range(1..=8))
                .map(|_| format!("d{}", rng.random_range(0..IDS)))
                .filter(|id| index.contains(id))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .take(3)
                .collect();
            if ids.is_empty() {
                continue;
            }
            Op::Remove(ids)
        } else {
            let k = if rng.random_bool(0.6) {
                1
            } else {
                rng.random_range(2..=6)
            };
            let ids: BTreeSet<String> = (0..k).map(|_| format!("d{}", rng.random_range(0..IDS))).collect();
            Op::Add(
                ids.into_iter()
                    .map(|id| {
                        ver += 1;
                        (id, ver)
                    })
                    .collect(),
            )
        };
        note(&format!("begin {}", op.line()));
        match &op {
            Op::Add(docs) => {
                // An id already present needs an upsert; some upserts add new ids only.
                let upsert = docs.iter().any(|(id, _)| index.contains(id)) || rng.random_bool(0.2);
                index
                    .add(docs.iter().map(|(id, v)| doc(id, *v)).collect(), upsert)
                    .unwrap();
            }
            Op::Remove(ids) => {
                assert_eq!(index.remove(ids).unwrap(), ids.len());
            }
            Op::Commit => {
                index.commit().unwrap();
            }
            Op::Merge => {
                if rng.random_bool(0.2) {
                    index.force_merge();
                } else {
                    index.merge();
                }
            }
        }
        note("ok");
    }
    unreachable!()
}

/// The acknowledged ops of one run of the writer, and the op it had begun when it died.
fn read_acks(ack: &Path) -> (Vec<Op>, Option<Op>) {
    let text = fs::read_to_string(ack).unwrap_or_default();
    let (mut done, mut begun) = (Vec::new(), None);
    // A last line without its newline was being written at the kill: not there.
    for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        let line = line.trim_end();
        if let Some(op) = line.strip_prefix("begin ") {
            assert!(begun.is_none(), "two ops begun at once");
            begun = Some(Op::parse(op));
        } else {
            assert_eq!(line, "ok");
            done.push(begun.take().expect("an ok after a begin"));
        }
    }
    (done, begun)
}

/// Every document of `d0..d<IDS>` the index holds, with its text; checked against what a
/// search for the word all share finds and against the index's count.
fn observed(index: &Bm25Index) -> BTreeMap<String, String> {
    let snap = index.snapshot();
    let docs: BTreeMap<String, String> = (0..IDS)
        .map(|i| format!("d{i}"))
        .filter_map(|id| {
            let text = snap.get(&id)?.text.unwrap_or("<no text>").to_string();
            Some((id, text))
        })
        .collect();
    let found: BTreeSet<String> = snap
        .search(
            &Query::Text("common"),
            &SearchOptions {
                top_k: 10 * IDS as usize,
                ..Default::default()
            },
        )
        .into_iter()
        .map(|h| snap.doc(h.slot).id.to_string())
        .collect();
    assert_eq!(found, docs.keys().cloned().collect(), "search and get disagree");
    assert_eq!(index.len(), docs.len(), "the count and get disagree");
    docs
}

fn texts(state: &BTreeMap<String, u64>) -> BTreeMap<String, String> {
    state.iter().map(|(id, &v)| (id.clone(), text_of(id, v))).collect()
}

/// The ids on which two states differ.
fn differ(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    let ids: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    ids.into_iter()
        .filter(|id| a.get(*id) != b.get(*id))
        .map(|id| format!("{id}: {:?} vs {:?}", a.get(id), b.get(id)))
        .collect()
}

/// After a commit, only these may be in the directory: the lock, the two newest manifests
/// and the files they name, and the writer's current log.
fn assert_no_orphans(dir: &Path, newest: &Manifest) {
    let mut allowed = newest.files();
    let previous = dir.join(manifest_file(newest.generation - 1));
    if previous.exists() {
        allowed.extend(Manifest::read(&previous).unwrap().files());
    }
    allowed.insert("LOCK".into());
    if let Some(&log) = wal::generations(dir).unwrap().last() {
        allowed.insert(wal::log_file(log));
    }
    let present = names(dir);
    let orphans: Vec<&String> = present.iter().filter(|n| !allowed.contains(*n)).collect();
    assert!(orphans.is_empty(), "orphan files {orphans:?} (present: {present:?})");
    let missing: Vec<String> = newest.files().into_iter().filter(|n| !present.contains(n)).collect();
    assert!(missing.is_empty(), "missing files {missing:?}");
}

fn names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.parse().unwrap())
}

/// Rounds: `RAGRANK_CRASH_ROUNDS` (default 25; 200 for the full run), seed:
/// `RAGRANK_CRASH_SEED` (default from the clock, printed, so a failure can be replayed).
#[test]
fn kill_9_at_random_moments_loses_no_acknowledged_write() {
    if std::env::var_os(CHILD).is_some() {
        let var = |n: &str| PathBuf::from(std::env::var_os(n).unwrap());
        writer(
            &var("RAGRANK_CRASH_DIR"),
            &var("RAGRANK_CRASH_ACK"),
            env_u64("RAGRANK_CRASH_CHILD_SEED").unwrap(),
        );
    }
    let rounds = env_u64("RAGRANK_CRASH_ROUNDS").unwrap_or(25);
    let seed = env_u64("RAGRANK_CRASH_SEED").unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            % 1_000_000
    });
    eprintln!("crash test: {rounds} rounds, RAGRANK_CRASH_SEED={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let root = temp("kill");
    let dir = root.join("index");
    let started = Instant::now();
    let mut state: BTreeMap<String, u64> = BTreeMap::new();
    let mut landed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut acked = 0;
    for round in 0..rounds {
        let ack = root.join(format!("acked-{round}.log"));
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([CRASH_TEST, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("RAGRANK_CRASH_DIR", &dir)
            .env("RAGRANK_CRASH_ACK", &ack)
            .env(
                "RAGRANK_CRASH_CHILD_SEED",
                ((seed % 1_000_000) * 1000 + round + 1).to_string(),
            )
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // Read on a thread to the end, so the pipe never fills; the harness prints on the
        // marker's line too ("test <name> ... ").
        let out = BufReader::new(child.stdout.take().unwrap());
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in out.lines().map_while(|l| l.ok()) {
                if line.contains(READY) {
                    let _ = ready_tx.send(());
                }
            }
        });
        // Most kills land in the writes; one in eight in the start and the open (log replay
        // and truncation), which take a few milliseconds.
        let pause = if rng.random_ratio(7, 8) {
            if ready.recv_timeout(Duration::from_secs(60)).is_err() {
                let _ = child.kill();
                let status = child.wait().unwrap();
                panic!("round {round}: the writer was not ready ({status})");
            }
            rng.random_range(5..150)
        } else {
            rng.random_range(0..10)
        };
        std::thread::sleep(Duration::from_millis(pause));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "round {round}: the writer ended on its own ({status}): a write or an open failed"
        );
        reader.join().unwrap();

        let (done, begun) = read_acks(&ack);
        acked += done.len();
        *landed
            .entry(begun.as_ref().map_or("none (in its open or between ops)", Op::kind))
            .or_default() += 1;
        done.iter().for_each(|op| op.apply(&mut state));
        let index = open(&dir, DurabilityMode::Sync)
            .unwrap_or_else(|e| panic!("round {round}: the directory does not open after the kill: {e:?}"));
        let seen = observed(&index);
        let without = texts(&state);
        if seen != without {
            // Then the op in flight at the kill must have happened, all of it.
            let op = begun.as_ref().unwrap_or_else(|| {
                panic!(
                    "round {round}: acknowledged state differs: {:?}",
                    differ(&without, &seen)
                )
            });
            let mut after = state.clone();
            op.apply(&mut after);
            assert!(
                seen == texts(&after),
                "round {round}: neither without nor with the op in flight ({}): {:?}",
                op.line(),
                differ(&without, &seen)
            );
            state = after;
        }
        let newest = index.commit().unwrap();
        assert_no_orphans(&dir, &newest);
        index.close().unwrap();
    }
    // The last commit alone (no log) gives the same documents.
    let index = open(&dir, DurabilityMode::Commit).unwrap();
    assert_eq!(observed(&index), texts(&state));
    index.close().unwrap();
    eprintln!(
        "crash test: {rounds} kills in {:.1?}, {acked} acknowledged ops, {} documents at the end; op in flight at the kill: {landed:?}",
        started.elapsed(),
        state.len()
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Names, sizes and modification times of a directory's files but `LOCK` (which a writer's
/// open rewrites with its pid, whatever it finds).
fn listing(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (e.file_name().into_string().unwrap(), (m.len(), m.modified().unwrap()))
        })
        .filter(|(n, _)| n != "LOCK")
        .collect()
}

/// A directory with committed segments and deletions, and logged writes after the commit.
fn committed_directory(dir: &Path) -> BTreeMap<String, String> {
    let index = open(dir, DurabilityMode::Sync).unwrap();
    for batch in 0..3u64 {
        let docs = (batch * 10..batch * 10 + 10)
            .map(|i| doc(&format!("d{i}"), i))
            .collect();
        index.add(docs, false).unwrap();
    }
    index.remove(&["d3".into(), "d15".into()]).unwrap();
    index.commit().unwrap();
    index.add(vec![doc("d40", 40)], false).unwrap();
    index.remove(&["d21".into()]).unwrap();
    observed(&index)
}

/// Changes a file's bytes; emptied, the file is removed.
type Damage = fn(&mut Vec<u8>);

#[test]
fn damage_is_named_and_the_directory_left_as_it_was() {
    let dir = temp("damage");
    let expected = committed_directory(&dir);
    let files = names(&dir);
    let find = |suffix: &str| files.iter().find(|n| n.ends_with(suffix)).unwrap().clone();
    let newest = Manifest::newest(&dir).unwrap().unwrap();
    let cases: [(String, Damage); 5] = [
        (find(".bm25"), |b| b[40] ^= 1),
        (find(".bm25"), |b| b.clear()),
        (find(".del"), |b| *b.last_mut().unwrap() ^= 0x10),
        (manifest_file(newest.generation), |b| b.truncate(b.len() / 2)),
        (manifest_file(newest.generation), |b| b[20] ^= 1),
    ];
    for (name, damage) in cases {
        let path = dir.join(&name);
        let original = fs::read(&path).unwrap();
        let mut bytes = original.clone();
        damage(&mut bytes);
        if bytes.is_empty() {
            fs::remove_file(&path).unwrap();
        } else {
            fs::write(&path, &bytes).unwrap();
        }
        let before = listing(&dir);
        for read_only in [false, true] {
            let err = Bm25Index::open(
                &dir,
                OpenOptions {
                    read_only,
                    ..Default::default()
                },
            )
            .err()
            .unwrap_or_else(|| panic!("{name} damaged, the directory opened"));
            assert_eq!(err.kind, ErrorKind::CorruptIndex, "{name}: {}", err.message);
            assert!(err.message.contains(&name), "{name}: {}", err.message);
            assert_eq!(listing(&dir), before, "{name}: a failed open changed the directory");
        }
        // The rest was left as it was: with the file back, everything is there.
        fs::write(&path, &original).unwrap();
        assert_eq!(observed(&open(&dir, DurabilityMode::Sync).unwrap()), expected, "{name}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_temporary_manifest_left_by_a_killed_commit_is_ignored_and_removed() {
    let dir = temp("tmp-manifest");
    let expected = committed_directory(&dir);
    let generation = Manifest::newest(&dir).unwrap().unwrap().generation;
    // What a commit killed before its rename leaves: part of the next manifest, unnamed.
    let torn = format!(
        ".{}.ragrank-tmp-4194303-00000000deadbeef.tmp",
        manifest_file(generation + 1)
    );
    fs::write(dir.join(&torn), b"RGRKMANI\x01\0\0\0{\"generation\":").unwrap();
    let index = open(&dir, DurabilityMode::Sync).unwrap();
    assert_eq!(observed(&index), expected);
    let newest = index.commit().unwrap();
    assert_eq!(newest.generation, generation + 1);
    assert!(!dir.join(&torn).exists());
    assert_no_orphans(&dir, &newest);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_torn_log_tail_loses_only_the_write_it_held() {
    let dir = temp("torn-log");
    {
        let index = open(&dir, DurabilityMode::Sync).unwrap();
        index.add(vec![doc("d0", 0)], false).unwrap();
        index.commit().unwrap();
        for i in 1..=5 {
            index.add(vec![doc(&format!("d{i}"), i)], false).unwrap();
        }
        index.remove(&["d2".into()]).unwrap();
        index.add(vec![doc("d6", 6), doc("d7", 7)], false).unwrap();
    }
    let log = dir.join(wal::log_file(*wal::generations(&dir).unwrap().last().unwrap()));
    let whole = fs::metadata(&log).unwrap().len();
    // Cut inside the last record (the add of d6 and d7): as a write killed half way.
    fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(whole - 9)
        .unwrap();
    let expected: BTreeMap<String, String> = [0, 1, 3, 4, 5]
        .map(|i| (format!("d{i}"), text_of(&format!("d{i}"), i)))
        .into();
    {
        let index = open(&dir, DurabilityMode::Sync).unwrap();
        assert_eq!(observed(&index), expected);
        assert!(
            fs::metadata(&log).unwrap().len() < whole - 9,
            "the torn record was cut off"
        );
        index.add(vec![doc("d8", 8)], false).unwrap();
    }
    // Killed again before any commit: the older log, cut, is read whole.
    let index = open(&dir, DurabilityMode::Sync).unwrap();
    let mut expected = expected;
    expected.insert("d8".into(), text_of("d8", 8));
    assert_eq!(observed(&index), expected);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_record_before_whole_ones_is_named_not_cut() {
    let dir = temp("mid-log");
    {
        let index = open(&dir, DurabilityMode::Sync).unwrap();
        for i in 0..5 {
            index.add(vec![doc(&format!("d{i}"), i)], false).unwrap();
        }
    }
    let log = dir.join(wal::log_file(*wal::generations(&dir).unwrap().last().unwrap()));
    let mut bytes = fs::read(&log).unwrap();
    // A byte in the first record's payload: the four records after it were acknowledged.
    bytes[12 + 17 + 3] ^= 1;
    fs::write(&log, &bytes).unwrap();
    let before = listing(&dir);
    let err = open(&dir, DurabilityMode::Sync).err().unwrap();
    assert_eq!(err.kind, ErrorKind::CorruptIndex, "{}", err.message);
    assert!(err.message.contains(&wal::log_file(1)), "{}", err.message);
    assert_eq!(listing(&dir), before, "a failed open changed the directory");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_log_killed_before_its_header_does_not_stop_later_opens() {
    let dir = temp("empty-log");
    {
        let index = open(&dir, DurabilityMode::Sync).unwrap();
        index.add(vec![doc("d0", 0)], false).unwrap();
    }
    // A writer killed between creating its next log and writing the header.
    let next = wal::generations(&dir).unwrap().last().unwrap() + 1;
    fs::write(dir.join(wal::log_file(next)), b"").unwrap();
    {
        let index = open(&dir, DurabilityMode::Sync).unwrap();
        assert!(index.contains("d0"));
        index.add(vec![doc("d1", 1)], false).unwrap();
        // Killed again, before any commit.
    }
    let index = open(&dir, DurabilityMode::Sync).unwrap();
    assert!(index.contains("d0") && index.contains("d1"));
    assert_no_orphans(&dir, &index.commit().unwrap());
    fs::remove_dir_all(&dir).unwrap();
}
