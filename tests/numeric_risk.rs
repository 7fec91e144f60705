//! Numeric disclosure risk and information loss (issue 34): anonlab's
//! dRiskRMD (with its MCD), distance-based record linkage, eigenvalue and
//! moment losses and IL1s per record beside sdcMicro 5.8.1's (and
//! robustbase's) figures in tests/golden/sdcmicro_numeric.json, written by
//! bench/sdcmicro/numeric_risk.R from the perturbed files it wrote to
//! tests/data/sdcmicro/numeric_*.csv and read back; then properties on
//! small random files.

use std::time::Instant;

use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use anonlab::metrics::{
    eigen_loss, eigenvalue_loss, il1s, il1s_per_record, moment_loss, robust_eigen_loss,
};
use anonlab::risk::{
    distance_linkage, interval_risk, rmd_risk, rmd_risk_with_cov, RmdOptions, DEFAULT_INTERVAL_K,
    DEFAULT_RANK_CAP, DEFAULT_RMD_K, DEFAULT_RMD_K2,
};
use anonlab::stats::mcd::{cov_mcd, mcd_from_subset, McdOptions};
use anonlab::stats::standardize::scale_columns;

use crate::common;

const GOLDEN: &str = "tests/golden/sdcmicro_numeric.json";
const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";

fn golden() -> serde_json::Value {
    let text = std::fs::read_to_string(GOLDEN).expect("read the golden file");
    serde_json::from_str(&text).expect("parse the golden file")
}

/// Columns `names` of a delimited file of numbers (header names may be
/// quoted), column-major, at most `rows` records. Rust's parser rounds
/// correctly, so the 17 significant digits the R script wrote give back
/// its doubles.
fn read_columns(path: &str, delim: char, names: &[&str], rows: usize) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(delim)
        .map(|h| h.trim().trim_matches('"').to_string())
        .collect();
    let idx: Vec<usize> = names
        .iter()
        .map(|n| header.iter().position(|h| h == n).expect("column"))
        .collect();
    let mut cols = vec![Vec::new(); names.len()];
    for line in lines.filter(|l| !l.trim().is_empty()).take(rows) {
        let fields: Vec<&str> = line.split(delim).collect();
        for (c, &i) in idx.iter().enumerate() {
            cols[c].push(fields[i].trim().parse::<f64>().expect("number"));
        }
    }
    cols
}

fn f64s(v: &serde_json::Value) -> Vec<f64> {
    match v {
        serde_json::Value::Array(a) => a.iter().map(|x| x.as_f64().expect("number")).collect(),
        x => vec![x.as_f64().expect("number")],
    }
}

fn usizes(v: &serde_json::Value) -> Vec<usize> {
    match v {
        serde_json::Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap() as usize).collect(),
        serde_json::Value::Null => Vec::new(),
        x => vec![x.as_u64().unwrap() as usize],
    }
}

/// R's 1-based record numbers as anonlab's 0-based ones.
fn one_based(v: &serde_json::Value) -> Vec<usize> {
    usizes(v).into_iter().map(|i| i - 1).collect()
}

fn near(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: anonlab {got} vs sdcMicro {want}"
    );
}

fn near_all(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        near(*g, *w, &format!("{what}[{i}]"));
    }
}

/// R's column-major p × p matrix as anonlab's row-major one (symmetric,
/// so the same; transposed anyway for clarity).
fn matrix(v: &serde_json::Value) -> Vec<f64> {
    let m = f64s(v);
    let p = (m.len() as f64).sqrt() as usize;
    (0..p * p).map(|k| m[(k % p) * p + k / p]).collect()
}

/// Every figure of one golden run.
fn check_run(run: &serde_json::Value, x: &[Vec<f64>], xm: &[Vec<f64>]) {
    let at = format!("{} / {}", run["data"], run["method"]);
    near(
        interval_risk(x, xm, DEFAULT_INTERVAL_K).unwrap(),
        run["drisk"].as_f64().unwrap(),
        &format!("{at}: dRisk"),
    );

    // The MCD. With one column robustbase's search is exact and anonlab
    // replays it: the same estimates. With more, robustbase draws R's
    // random subsets: its h-subset goes through anonlab's formulas to the
    // same estimates, and anonlab's own search must reach a determinant
    // no larger (its subset may differ: see stats::mcd).
    let mcd = &run["mcd"];
    let xs = scale_columns(x, "original").unwrap();
    let t = Instant::now();
    let own = cov_mcd(&xs, McdOptions::default()).unwrap();
    let mcd_secs = t.elapsed().as_secs_f64();
    assert_eq!(own.h, mcd["quan"].as_u64().unwrap() as usize, "{at}: h");
    near_all(
        &own.raw_cnp2,
        &f64s(&mcd["raw_cnp2"]),
        &format!("{at}: raw.cnp2"),
    );
    let r_best = one_based(&mcd["best"]);
    let exact = r_best.is_empty();
    if exact {
        near_all(
            &own.raw_center,
            &f64s(&mcd["raw_center"]),
            &format!("{at}: raw centre"),
        );
        near_all(
            &own.raw_cov,
            &matrix(&mcd["raw_cov"]),
            &format!("{at}: raw cov"),
        );
        near_all(&own.cov, &matrix(&mcd["cov"]), &format!("{at}: cov"));
        near_all(&own.cnp2, &f64s(&mcd["cnp2"]), &format!("{at}: cnp2"));
        near(
            own.crit,
            mcd["crit"].as_f64().unwrap(),
            &format!("{at}: crit"),
        );
    } else {
        let from_r = mcd_from_subset(&xs, &r_best).unwrap();
        near_all(
            &from_r.raw_center,
            &f64s(&mcd["raw_center"]),
            &format!("{at}: raw centre from R's subset"),
        );
        near_all(
            &from_r.raw_cov,
            &matrix(&mcd["raw_cov"]),
            &format!("{at}: raw cov from R's subset"),
        );
        near_all(
            &from_r.cov,
            &matrix(&mcd["cov"]),
            &format!("{at}: cov from R's subset"),
        );
        near_all(
            &from_r.cnp2,
            &f64s(&mcd["cnp2"]),
            &format!("{at}: cnp2 from R's subset"),
        );
        near(
            from_r.crit,
            mcd["crit"].as_f64().unwrap(),
            &format!("{at}: crit of R's subset"),
        );
        let r_crit = mcd["crit"].as_f64().unwrap();
        let shared = own
            .best
            .iter()
            .filter(|i| r_best.binary_search(i).is_ok())
            .count();
        eprintln!(
            "{at}: MCD log det anonlab {:.6} robustbase {r_crit:.6}; subsets share {shared} of {}",
            own.crit, own.h
        );
        assert!(
            own.crit <= r_crit + 1e-9,
            "{at}: anonlab's MCD log det {} > robustbase's {r_crit}",
            own.crit
        );
    }

    // dRiskRMD: the formula with R's covariance to 1e-9; with anonlab's
    // own MCD the same figures where the MCD is the same (one column).
    let rmd = &run["rmd"];
    let with_r =
        rmd_risk_with_cov(x, xm, &matrix(&mcd["cov"]), DEFAULT_RMD_K, DEFAULT_RMD_K2).unwrap();
    let t = Instant::now();
    let ours = rmd_risk(x, xm, RmdOptions::default()).unwrap();
    let rmd_secs = t.elapsed().as_secs_f64();
    let mut checks = vec![(&with_r, "R's covariance")];
    if exact {
        checks.push((&ours, "anonlab's MCD"));
    } else {
        eprintln!(
            "{at}: dRiskRMD with anonlab's MCD: risk1 {} risk2 {} wrisk1 {} wrisk2 {} (sdcMicro {} {} {} {})",
            ours.risk1, ours.risk2, ours.wrisk1, ours.wrisk2,
            rmd["risk1"], rmd["risk2"], rmd["wrisk1"], rmd["wrisk2"]
        );
    }
    for (r, who) in checks {
        let w = format!("{at}, {who}");
        near(
            r.risk1,
            rmd["risk1"].as_f64().unwrap(),
            &format!("{w}: risk1"),
        );
        near(
            r.risk2,
            rmd["risk2"].as_f64().unwrap(),
            &format!("{w}: risk2"),
        );
        near(
            r.wrisk1,
            rmd["wrisk1"].as_f64().unwrap(),
            &format!("{w}: wrisk1"),
        );
        near(
            r.wrisk2,
            rmd["wrisk2"].as_f64().unwrap(),
            &format!("{w}: wrisk2"),
        );
        assert_eq!(
            r.index_risk1,
            one_based(&rmd["index_risk1"]),
            "{w}: indexRisk1"
        );
        assert_eq!(
            r.index_risk2,
            one_based(&rmd["index_risk2"]),
            "{w}: indexRisk2"
        );
    }

    // robeigen: the formula on robustbase's two covariances; anonlab's own
    // figure equal where its MCD is (one column).
    let covs = &run["robeigen_covs"];
    let p = x.len();
    near(
        eigenvalue_loss(&matrix(&covs["x"]), &matrix(&covs["xm"]), p),
        run["robeigen"].as_f64().unwrap(),
        &format!("{at}: robeigen from robustbase's covariances"),
    );
    let xm_best = one_based(&covs["xm_best"]);
    if !xm_best.is_empty() {
        let xms = scale_columns(xm, "perturbed").unwrap();
        let from_r = mcd_from_subset(&xms, &xm_best).unwrap();
        near_all(
            &from_r.cov,
            &matrix(&covs["xm"]),
            &format!("{at}: perturbed file's cov from R's subset"),
        );
    }
    let robeigen = robust_eigen_loss(x, xm, McdOptions::default()).unwrap();
    if exact {
        near(
            robeigen,
            run["robeigen"].as_f64().unwrap(),
            &format!("{at}: robeigen"),
        );
    } else {
        eprintln!(
            "{at}: robeigen with anonlab's MCD {robeigen} (sdcMicro {})",
            run["robeigen"]
        );
    }

    // Information loss.
    let loss = il1s(x, xm).unwrap();
    near(loss, run["il1s"].as_f64().unwrap(), &format!("{at}: IL1s"));
    let per_record: f64 = il1s_per_record(x, xm).unwrap().iter().sum();
    near(per_record, loss, &format!("{at}: IL1s per record, summed"));
    near(
        eigen_loss(x, xm).unwrap(),
        run["eigen"].as_f64().unwrap(),
        &format!("{at}: eigen"),
    );
    let m = moment_loss(x, xm).unwrap();
    near(
        m.means,
        run["means"].as_f64().unwrap(),
        &format!("{at}: means"),
    );
    near(
        m.covariances,
        run["covariances"].as_f64().unwrap(),
        &format!("{at}: covariances"),
    );
    match (m.correlations, run.get("correlations")) {
        (Some(c), Some(w)) => near(c, w.as_f64().unwrap(), &format!("{at}: correlations")),
        (None, None) => {}
        other => panic!("{at}: correlations {other:?}"),
    }

    // Linkage.
    let t = Instant::now();
    let link = distance_linkage(x, xm, DEFAULT_RANK_CAP).unwrap();
    let link_secs = t.elapsed().as_secs_f64();
    let lk = &run["linkage"];
    near(
        link.share,
        lk["share"].as_f64().unwrap(),
        &format!("{at}: linkage share"),
    );
    assert_eq!(
        link.rank_histogram(5),
        usizes(&lk["rank_histogram"]),
        "{at}: rank histogram"
    );
    let first: Vec<usize> = usizes(&lk["first_ranks"])
        .into_iter()
        .map(|r| r.min(DEFAULT_RANK_CAP + 1))
        .collect();
    assert_eq!(&link.rank[..first.len()], &first[..], "{at}: first ranks");
    eprintln!(
        "{at}: MCD {mcd_secs:.3} s, dRiskRMD {rmd_secs:.3} s (sdcMicro {} s), linkage {link_secs:.3} s",
        rmd["seconds"]
    );
}

fn runs_of<'a>(g: &'a serde_json::Value, data: &str) -> Vec<&'a serde_json::Value> {
    let runs: Vec<_> = g["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter(|r| r["data"] == data)
        .collect();
    assert_eq!(runs.len(), 2, "noise and MDAV runs of {data}");
    runs
}

fn perturbed_file(data: &str, method: &serde_json::Value) -> String {
    let kind = if method.as_str().unwrap().starts_with("addNoise") {
        "noise"
    } else {
        "mdav"
    };
    format!("tests/data/sdcmicro/numeric_{data}_{kind}.csv")
}

#[test]
fn numeric_risk_on_testdata_matches_sdcmicro() {
    let g = golden();
    let names = ["income", "expend", "savings"];
    let x = read_columns(TESTDATA, ',', &names, usize::MAX);
    for run in runs_of(&g, "testdata") {
        let xm = read_columns(
            &perturbed_file("testdata", &run["method"]),
            ',',
            &names,
            usize::MAX,
        );
        check_run(run, &x, &xm);
    }
}

#[test]
fn numeric_risk_on_adult_age_matches_sdcmicro() {
    if !common::have_adult() {
        return;
    }
    let g = golden();
    let adult = common::adult_path();
    let rows = g["adult_rows"].as_u64().unwrap() as usize;
    let x = read_columns(adult.to_str().unwrap(), ';', &["age"], rows);
    for run in runs_of(&g, "adult") {
        let xm = read_columns(
            &perturbed_file("adult", &run["method"]),
            ',',
            &["age"],
            usize::MAX,
        );
        check_run(run, &x, &xm);
    }
    // The univariate MCD on all of Adult's ages.
    let all = read_columns(adult.to_str().unwrap(), ';', &["age"], usize::MAX);
    let want = &g["adult_age_mcd"];
    assert_eq!(all[0].len(), want["rows"].as_u64().unwrap() as usize);
    let m = cov_mcd(
        &scale_columns(&all, "original").unwrap(),
        McdOptions::default(),
    )
    .unwrap();
    near_all(
        &m.raw_center,
        &f64s(&want["raw_center"]),
        "Adult age: raw centre",
    );
    near_all(&m.raw_cov, &f64s(&want["raw_cov"]), "Adult age: raw cov");
    near_all(&m.cov, &f64s(&want["cov"]), "Adult age: cov");
    near_all(&m.cnp2, &f64s(&want["cnp2"]), "Adult age: cnp2");
    near(m.crit, want["crit"].as_f64().unwrap(), "Adult age: crit");
}

/// `n` records of `p` columns of continuous values (no duplicates).
fn random_file(n: usize, p: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..p)
        .map(|j| {
            (0..n)
                .map(|_| rng.random::<f64>() * (j + 1) as f64 * 100.0)
                .collect()
        })
        .collect()
}

#[test]
fn linkage_of_a_shuffled_file_is_chance() {
    let n = 2000;
    let x = random_file(n, 3, 1);
    let same = distance_linkage(&x, &x, DEFAULT_RANK_CAP).unwrap();
    assert_eq!(same.share, 1.0);
    assert!(same.rank.iter().all(|&r| r == 1));
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(2));
    let shuffled: Vec<Vec<f64>> = x
        .iter()
        .map(|c| order.iter().map(|&i| c[i]).collect())
        .collect();
    let l = distance_linkage(&x, &shuffled, DEFAULT_RANK_CAP).unwrap();
    // Only records the shuffle left in place (about one) link: O(1/n).
    let fixed = order.iter().enumerate().filter(|(i, &o)| *i == o).count();
    assert_eq!(l.share, fixed as f64 / n as f64, "share {}", l.share);
    assert!(l.share <= 5.0 / n as f64);
    // Most own records are far down the ranking.
    let beyond = l.rank.iter().filter(|&&r| r > DEFAULT_RANK_CAP).count();
    assert!(
        beyond > n * 9 / 10,
        "{beyond} of {n} beyond rank {DEFAULT_RANK_CAP}"
    );
}

#[test]
fn loss_of_an_identical_file_is_zero() {
    let x = random_file(500, 3, 3);
    assert_eq!(il1s(&x, &x).unwrap(), 0.0);
    assert!(il1s_per_record(&x, &x).unwrap().iter().all(|&v| v == 0.0));
    assert_eq!(eigen_loss(&x, &x).unwrap(), 0.0);
    assert_eq!(
        robust_eigen_loss(&x, &x, McdOptions::default()).unwrap(),
        0.0
    );
    let m = moment_loss(&x, &x).unwrap();
    assert_eq!(
        (m.means, m.covariances, m.correlations),
        (0.0, 0.0, Some(0.0))
    );
    // And a perturbed one loses something.
    let noisy: Vec<Vec<f64>> = x
        .iter()
        .map(|c| c.iter().map(|v| v + 1.0).collect())
        .collect();
    assert!(il1s(&x, &noisy).unwrap() > 0.0 && moment_loss(&x, &noisy).unwrap().means > 0.0);
}

/// Small files with many ties: 1..3 columns of 0..6.
fn tied_files() -> impl Strategy<Value = (Vec<Vec<f64>>, Vec<Vec<f64>>)> {
    (1usize..4, 3usize..40).prop_flat_map(|(p, n)| {
        let col = prop::collection::vec((0u32..6).prop_map(f64::from), n);
        let cols = prop::collection::vec(col, p);
        (cols.clone(), cols)
    })
}

fn brute_force_share(x: &[Vec<f64>], xm: &[Vec<f64>]) -> f64 {
    let xs = scale_columns(x, "original").unwrap();
    let xms = scale_columns(xm, "perturbed").unwrap();
    let n = xs[0].len();
    let mut share = 0.0;
    for i in 0..n {
        let d: Vec<f64> = (0..n)
            .map(|j| {
                xs.iter()
                    .zip(&xms)
                    .fold(0.0, |s, (a, b)| s + (b[j] - a[i]) * (b[j] - a[i]))
            })
            .collect();
        let m = d.iter().copied().fold(f64::INFINITY, f64::min);
        if d[i] == m {
            share += 1.0 / d.iter().filter(|&&v| v == m).count() as f64;
        }
    }
    share / n as f64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn per_record_il1s_sums_to_il1s((x, xm) in tied_files()) {
        let total = il1s(&x, &xm).unwrap();
        let sum: f64 = il1s_per_record(&x, &xm).unwrap().iter().sum();
        // A constant original column that changed makes both +∞ (sdcMicro's
        // sum of x/0): equal, but ∞ − ∞ is no difference to bound.
        prop_assert!(
            sum == total || (sum - total).abs() <= 1e-12 * total.max(1.0),
            "{sum} vs {total}"
        );
    }

    #[test]
    fn linkage_share_is_the_brute_force_one((x, xm) in tied_files()) {
        // A constant column cannot be standardized: both refuse it.
        prop_assume!(x.iter().chain(&xm).all(|c| c.iter().any(|&v| v != c[0])));
        let l = distance_linkage(&x, &xm, DEFAULT_RANK_CAP).unwrap();
        let want = brute_force_share(&x, &xm);
        prop_assert!((l.share - want).abs() < 1e-12, "{} vs {}", l.share, want);
    }
}
