//! Search parameters: the table, resolution from named values, that the defaults are today's
//! search (the bench signature), that moving a parameter reaches the search, and the searcher's
//! external stop flag and iteration hook.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::bench::{bench, bench_with, HASH_MB};
use arbiter_core::eval::{default_weights, weight_table, Evaluate};
use arbiter_core::limits::SearchLimits;
use arbiter_core::params::{resolve_params, ParamError, SearchParams, PARAM_TABLE};
use arbiter_core::search::{Iteration, Searcher};
use arbiter_core::{congo, congress, GameKind, Rules};

fn named(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

fn depth(d: u32) -> SearchLimits {
    SearchLimits::depth(d)
}

#[test]
fn table_rows() {
    assert!(PARAM_TABLE.len() >= 8);
    let defaults = SearchParams::default();
    assert_eq!(defaults, SearchParams::DEFAULT);
    assert_eq!(defaults.values(), PARAM_TABLE.iter().map(|s| s.default).collect::<Vec<_>>());
    let mut names: Vec<&str> = PARAM_TABLE.iter().map(|s| s.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), PARAM_TABLE.len(), "duplicate parameter names");
    for (i, spec) in PARAM_TABLE.iter().enumerate() {
        assert!(spec.min <= spec.default && spec.default <= spec.max, "{}", spec.name);
        assert!(!spec.description.is_empty() && !spec.description.contains('\n'), "{}", spec.name);
        assert_eq!(defaults.get(spec.name), Some(spec.default));
        // Both bounds are accepted; only the named entry changes.
        for value in [spec.min, spec.max] {
            let got = resolve_params(&named(&[(spec.name, value as i64)])).unwrap();
            let mut want = defaults.values();
            want[i] = value;
            assert_eq!(got.values(), want, "{} = {value}", spec.name);
        }
        // No parameter shares a name with an evaluation weight: an engine lists both as options.
        for game in GameKind::ALL {
            assert!(weight_table(game).iter().all(|w| w.name != spec.name), "{} is a {game} weight", spec.name);
        }
    }
    assert_eq!(defaults.get("no_such_parameter"), None);
    assert_eq!(resolve_params(&[]).unwrap(), defaults);
}

#[test]
fn unknown_names_and_out_of_range() {
    let err = resolve_params(&named(&[("lmr_min_depth", 4), ("pawn", 100), ("nmp", 3)])).unwrap_err();
    assert_eq!(err, ParamError::Unknown { names: vec!["pawn".into(), "nmp".into()] });
    assert!(err.to_string().contains("pawn, nmp"), "{err}");
    let spec = PARAM_TABLE[0];
    for value in [spec.min as i64 - 1, spec.max as i64 + 1, i64::MIN, i64::MAX] {
        let err = resolve_params(&named(&[(spec.name, value)])).unwrap_err();
        assert_eq!(err, ParamError::OutOfRange { name: spec.name.into(), value, min: spec.min, max: spec.max });
        assert!(err.to_string().contains(&value.to_string()), "{err}");
    }
    // `set` refuses the same and leaves the value alone.
    let mut p = SearchParams::default();
    assert!(p.set("lmr_min_depth", 1000).is_err());
    assert!(p.set("LMR_MIN_DEPTH", 4).is_err());
    assert_eq!(p, SearchParams::default());
    p.set("lmr_min_depth", 4).unwrap();
    assert_eq!(p.lmr_min_depth, 4);
}

/// The defaults are the search the bench signature pins (tests/search.rs): `bench_with` the
/// defaults is `bench`, and `with_params(defaults)` is `new`.
#[test]
fn defaults_keep_the_bench_signature() {
    assert_eq!(
        bench_with(GameKind::Congress, None, &default_weights(GameKind::Congress), SearchParams::default(), HASH_MB)
            .nodes,
        358_802
    );
    assert_eq!(bench(GameKind::Congress, None).nodes, 358_802);
    let pos = congo::Position::start();
    let w = default_weights(GameKind::Congo);
    let a = Searcher::<congo::Position>::new(w.clone(), 4).search(&pos, depth(7), &[]);
    let b = Searcher::<congo::Position>::with_params(w, SearchParams::default(), 4).search(&pos, depth(7), &[]);
    assert_eq!((a.nodes, a.score, a.best_move), (b.nodes, b.score, b.best_move));
}

fn signature<P: Evaluate>(fen: &str, params: SearchParams, d: u32) -> (u64, i32) {
    let pos = P::from_fen(fen).unwrap();
    let r = Searcher::<P>::with_params(default_weights(P::GAME), params, 4).search(&pos, depth(d), &[]);
    (r.nodes, r.score)
}

/// A parameter, its moved value, and other parameters set in both searches.
type Moved = (&'static str, i64, &'static [(&'static str, i64)]);

/// Every parameter moved away from its default changes the search on a bench position (nodes or
/// score): each one really reaches it. The pruning depth limit is moved with its margin on, the
/// late-move index with its extra reduction on.
#[test]
fn every_parameter_reaches_the_search() {
    let moved: &[Moved] = &[
        ("lmr_min_depth", 2, &[]),
        ("lmr_min_move", 1, &[]),
        ("lmr_reduction", 1, &[]),
        ("lmr_late_move", 4, &[("lmr_late_reduction", 1)]),
        ("lmr_late_reduction", 1, &[]),
        ("lmr_depth_divisor", 2, &[]),
        ("history_depth2", 0, &[]),
        ("history_depth1", 64, &[]),
        ("history_max", 0, &[]),
        ("order_capture", 0, &[]),
        ("order_killer1", 0, &[]),
        ("order_killer2", 1 << 29, &[]),
        ("aspiration_window", 20, &[]),
        ("futility_margin", 150, &[]),
        ("futility_depth", 3, &[("futility_margin", 150)]),
        ("delta_margin", 100, &[]),
    ];
    assert_eq!(moved.len(), PARAM_TABLE.len(), "a parameter without a test row");
    let fen = arbiter_core::bench::CONGO_POSITIONS[0];
    let congress_fen = arbiter_core::bench::CONGRESS_POSITIONS[0];
    for (name, value, with) in moved {
        let base = resolve_params(&named(with)).unwrap();
        let mut changed = base;
        changed.set(name, *value).unwrap();
        assert_ne!(base, changed);
        let differs = signature::<congo::Position>(fen, base, 7) != signature::<congo::Position>(fen, changed, 7)
            || signature::<congress::Position>(congress_fen, base, 7)
                != signature::<congress::Position>(congress_fen, changed, 7);
        assert!(differs, "{name} = {value} changes nothing");
    }
}

/// A pruning parameter switched on still finds a one-move win (the captures are never pruned).
#[test]
fn pruning_keeps_a_win_in_one() {
    let p =
        resolve_params(&named(&[("aspiration_window", 25), ("futility_margin", 200), ("delta_margin", 150)])).unwrap();
    let pos = congress::Position::from_fen("5k2/8/7B/3h4/2P5/3K4 w").unwrap();
    let r = Searcher::<congress::Position>::with_params(default_weights(GameKind::Congress), p, 4).search(
        &pos,
        depth(5),
        &[],
    );
    assert_eq!(r.best_move.map(|m| m.to_string()).as_deref(), Some("h4f6"));
}

/// A set stop flag ends an unlimited search soon, with a legal move from a completed iteration.
#[test]
fn external_stop_flag() {
    let flag = Arc::new(AtomicBool::new(false));
    let mut searcher = Searcher::<congo::Position>::new(default_weights(GameKind::Congo), 4);
    searcher.set_stop_flag(Some(flag.clone()));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let pos = congo::Position::start();
    let start = Instant::now();
    let r = searcher.search(&pos, depth(100), &[]);
    setter.join().unwrap();
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    assert!(pos.legal_moves().contains(&r.best_move.unwrap()));
    assert!(r.depth >= 1 && r.depth < 100);
    // Already set: the search still completes depth 1 (a move is always returned).
    let r = searcher.search(&pos, depth(100), &[]);
    assert!(r.best_move.is_some() && r.depth >= 1);
}

/// The hook sees every completed iteration, as the result lists them, and changes nothing.
#[test]
fn iteration_hook() {
    let seen: Arc<Mutex<Vec<Iteration<congo::Move>>>> = Arc::default();
    let mut searcher = Searcher::<congo::Position>::new(default_weights(GameKind::Congo), 4);
    let sink = seen.clone();
    searcher.set_iteration_hook(Some(Box::new(move |it| sink.lock().unwrap().push(it.clone()))));
    let pos = congo::Position::start();
    let r = searcher.search(&pos, depth(6), &[]);
    assert_eq!(*seen.lock().unwrap(), r.iterations);
    let plain = Searcher::<congo::Position>::new(default_weights(GameKind::Congo), 4).search(&pos, depth(6), &[]);
    assert_eq!((plain.nodes, plain.score, plain.pv), (r.nodes, r.score, r.pv.clone()));
}
