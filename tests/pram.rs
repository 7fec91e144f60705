//! PRAM (issue 34, part "PRAM"): anonlab's transition matrices and their
//! application beside sdcMicro 5.8.1's, from tests/golden/sdcmicro_pram.json
//! (written by bench/sdcmicro/pram.R, which says how each figure was
//! taken), then property tests on small random files and the user matrix
//! file's bad inputs.

use std::io::Write;
use std::path::Path;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use anonlab::algorithms::pram::{
    draw_diagonal, expected_transitions, invariance, invariant_from_diagonal, pram,
    read_matrix_csv, transition_counts, MatrixSource, MinDiagonal, PramSpec, TransitionMatrix,
    MAX_MATRIX_FILE_BYTES,
};
use anonlab::data::{load_csv, CsvOptions, Dataset};
use anonlab::metrics::{changed_share, contingency_distance};
use anonlab::progress::Progress;

use crate::common;

const GOLDEN: &str = "tests/golden/sdcmicro_pram.json";
const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";

fn golden() -> serde_json::Value {
    let text = std::fs::read_to_string(GOLDEN).expect("read the golden file");
    serde_json::from_str(&text).expect("parse the golden file")
}

fn testdata() -> Dataset {
    load_csv(Path::new(TESTDATA), &CsvOptions::default()).expect("load testdata")
}

fn f64s(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn rows(v: &serde_json::Value) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(f64s).collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().expect("text").to_string())
        .collect()
}

/// The dictionary names of column `c`.
fn categories(ds: &Dataset, c: usize) -> Vec<String> {
    ds.col(c)
        .dictionary()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Non-missing counts of column `c` over `records` (all when `None`).
fn counts(ds: &Dataset, c: usize, records: Option<&[usize]>) -> Vec<f64> {
    let col = ds.col(c);
    let mut f = vec![0.0; col.cardinality()];
    let mut add = |code: u32| {
        if !col.is_missing(code) {
            f[code as usize] += 1.0;
        }
    };
    match records {
        None => col.codes().iter().for_each(|&x| add(x)),
        Some(rs) => rs.iter().for_each(|&r| add(col.code(r))),
    }
    f
}

/// Writes a matrix as R's `write.csv` would (corner `""`, rows in the
/// order given), quoting nothing else; `{:?}` keeps every bit of a double.
fn write_matrix(path: &Path, levels: &[String], m: &[Vec<f64>]) {
    let mut f = std::fs::File::create(path).unwrap();
    writeln!(f, "\"\",{}", levels.join(",")).unwrap();
    for (name, row) in levels.iter().zip(m) {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:?}")).collect();
        writeln!(f, "{name},{}", cells.join(",")).unwrap();
    }
}

/// sdcMicro's matrix of one golden run read through anonlab's user-matrix
/// reader (so in the column's dictionary order), and the position in the
/// dictionary of each of sdcMicro's levels.
fn sdcmicro_matrix(
    ds: &Dataset,
    c: usize,
    run: &serde_json::Value,
) -> (TransitionMatrix, Vec<usize>) {
    let levels = strings(&run["levels"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("matrix.csv");
    write_matrix(&path, &levels, &rows(&run["matrix"]));
    let col = ds.col(c);
    let cats = categories(ds, c);
    let names: Vec<&str> = cats.iter().map(String::as_str).collect();
    let m = read_matrix_csv(&path, &names, &|s| col.code_of(s)).expect("read sdcMicro's matrix");
    let order = levels
        .iter()
        .map(|l| col.code_of(l).expect("level") as usize)
        .collect();
    (m, order)
}

/// anonlab's expected transition counts (its own frequencies × sdcMicro's
/// matrix) equal sdcMicro's freq × Rs to 1e-9; the frequencies are the
/// same; the matrix built by anonlab from sdcMicro's diagonal draws is
/// sdcMicro's to 1e-9. Returns the matrix for the statistical test.
fn same_as_sdcmicro(
    ds: &Dataset,
    c: usize,
    run: &serde_json::Value,
    records: Option<&[usize]>,
) -> TransitionMatrix {
    let at = format!("{} {} seed {}", run["data"], run["variable"], run["seed"]);
    let (m, order) = sdcmicro_matrix(ds, c, run);
    let freq = counts(ds, c, records);
    let l = freq.len();
    let theirs = f64s(&run["frequencies"]);
    assert_eq!(theirs.len(), l, "{at}: levels");
    for (i, &o) in order.iter().enumerate() {
        assert_eq!(freq[o], theirs[i], "{at}: frequency of level {i}");
    }
    let ours = expected_transitions(&m, &freq).unwrap();
    let want = rows(&run["expected"]);
    let mut worst_count = 0.0f64;
    for (i, &oi) in order.iter().enumerate() {
        for (j, &oj) in order.iter().enumerate() {
            let (a, b) = (ours[oi * l + oj], want[i][j]);
            assert!(
                (a - b).abs() <= 1e-9,
                "{at}: expected count ({i}, {j}) {a} vs {b}"
            );
            worst_count = worst_count.max((a - b).abs());
        }
    }
    // The same construction from the same diagonal draws.
    let drawn = f64s(&run["diagonal"]);
    let pd = run["pd"].as_f64().unwrap();
    let alpha = run["alpha"].as_f64().unwrap();
    let mut pds = vec![0.0; l];
    for (i, &o) in order.iter().enumerate() {
        assert!(
            drawn[i] >= pd && drawn[i] <= 1.0,
            "{at}: diagonal draw {}",
            drawn[i]
        );
        pds[o] = drawn[i];
    }
    let rebuilt = invariant_from_diagonal(&pds, &freq, alpha);
    let mut worst_entry = 0.0f64;
    for (k, (a, b)) in rebuilt.iter().zip(&m.entries).enumerate() {
        worst_entry = worst_entry.max((a - b).abs());
        assert!(
            (a - b).abs() <= 1e-9,
            "{at}: entry {k}: anonlab {a}, sdcMicro {b}"
        );
    }
    let n: f64 = freq.iter().sum();
    let kept: f64 = (0..l).map(|i| freq[i] * m.get(i, i)).sum();
    eprintln!(
        "{at}: L = {l}, n = {n}, expected changes {:.3}, sdcMicro's draw {}; \
         largest difference: expected count {worst_count:.2e}, matrix entry rebuilt from \
         sdcMicro's diagonal {worst_entry:.2e}",
        n - kept,
        run["changes"]
    );
    assert!(
        invariance(&m, &freq).unwrap().holds(1e-9),
        "{at}: sdcMicro's matrix invariant"
    );
    m
}

/// Applies `m` to column `c` with seeds 0..seeds and checks that the mean
/// observed transition counts converge to freq × P: each cell within 5
/// standard deviations of its mean over the runs (binomial, n_i P(1 − P)
/// / seeds), plus 1e-9. sdcMicro's one observed draw is checked too,
/// within 6 standard deviations of a single run, the variance taken as at
/// least 1 (a cell expecting 0.28 records holds 3 in sdcMicro's draw of
/// Adult's marital-status: for counts that small the normal bound is too
/// tight, and a Poisson(1) count exceeds 7 with probability 1e-4).
fn converges(ds: &Dataset, c: usize, m: &TransitionMatrix, run: &serde_json::Value, seeds: u64) {
    let at = format!("{} {}", run["data"], run["variable"]);
    let l = m.len();
    let freq = counts(ds, c, None);
    let spec = PramSpec {
        column: c,
        source: MatrixSource::Given(m.clone()),
    };
    let mut sum = vec![0u64; l * l];
    for seed in 0..seeds {
        let out = pram(
            ds,
            std::slice::from_ref(&spec),
            None,
            seed,
            &Progress::new(),
        )
        .unwrap();
        let t = transition_counts(ds.col(c).codes(), &out.attributes[0].codes, l);
        for (s, x) in sum.iter_mut().zip(t) {
            *s += x;
        }
    }
    let kept: u64 = (0..l).map(|i| sum[i * l + i]).sum();
    let mean_changes = (freq.iter().sum::<f64>() * seeds as f64 - kept as f64) / seeds as f64;
    eprintln!("{at}: anonlab's mean changes over {seeds} seeds {mean_changes:.3}");
    let (_, order) = sdcmicro_matrix(ds, c, run);
    let observed = rows(&run["observed"]);
    for i in 0..l {
        for j in 0..l {
            let p = m.get(i, j);
            let want = freq[i] * p;
            let var = freq[i] * p * (1.0 - p);
            let mean = sum[i * l + j] as f64 / seeds as f64;
            let sd = (var / seeds as f64).sqrt();
            assert!(
                (mean - want).abs() <= 5.0 * sd + 1e-9,
                "{at}: ({i}, {j}) mean {mean} vs expected {want} (sd {sd})"
            );
        }
    }
    for (i, &oi) in order.iter().enumerate() {
        for (j, &oj) in order.iter().enumerate() {
            let p = m.get(oi, oj);
            let want = freq[oi] * p;
            let sd = (freq[oi] * p * (1.0 - p)).max(1.0).sqrt();
            assert!(
                (observed[i][j] - want).abs() <= 6.0 * sd + 1e-9,
                "{at}: sdcMicro's observed ({i}, {j}) {} vs expected {want}",
                observed[i][j]
            );
        }
    }
}

/// (a) testdata: sdcMicro's matrices give the same expected transition
/// counts, anonlab rebuilds them from sdcMicro's diagonal draws, and
/// anonlab's application with 200 seeds converges to them.
#[test]
fn testdata_matches_sdcmicro_expected_transitions() {
    let g = golden();
    let ds = testdata();
    let mut seen = 0;
    for run in g["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["data"] == "testdata")
    {
        let c = ds.column_index(run["variable"].as_str().unwrap()).unwrap();
        let m = same_as_sdcmicro(&ds, c, run, None);
        converges(&ds, c, &m, run, 200);
        seen += 1;
    }
    assert_eq!(seen, 6, "testdata runs in the golden file");
}

/// (a) Adult's categorical columns, 50 seeds each.
#[test]
fn adult_matches_sdcmicro_expected_transitions() {
    let g = golden();
    let Some(ds) = common::adult() else { return };
    let mut seen = 0;
    for run in g["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["data"] == "adult")
    {
        let c = ds.column_index(run["variable"].as_str().unwrap()).unwrap();
        let m = same_as_sdcmicro(&ds, c, run, None);
        converges(&ds, c, &m, run, 50);
        seen += 1;
    }
    assert_eq!(seen, 5, "Adult runs in the golden file");
}

/// Strata: each stratum's matrix of roof within urbrur (sdcMicro on the
/// stratum's records) is rebuilt from its diagonal with the stratum's own
/// frequencies; sdcMicro's stratified call (and its issue #234's example)
/// published no value outside its stratum, as the module header says.
#[test]
fn strata_match_sdcmicro() {
    let g = golden();
    let ds = testdata();
    let c = ds.column_index("roof").unwrap();
    let s = ds.column_index("urbrur").unwrap();
    for run in g["strata"]["matrices"].as_array().unwrap() {
        let stratum = run["stratum"].as_str().unwrap();
        let code = ds.col(s).code_of(stratum).unwrap();
        let records: Vec<usize> = (0..ds.n_rows())
            .filter(|&r| ds.col(s).code(r) == code)
            .collect();
        same_as_sdcmicro(&ds, c, run, Some(&records));
    }
    assert_eq!(
        g["strata"]["stratified_call"]["published_outside_stratum"],
        0
    );
    assert_eq!(g["strata"]["issue_234"]["published_outside_stratum"], 0);
    // anonlab's own stratified run: one matrix per stratum from its own
    // frequencies, each invariant for them.
    let spec = PramSpec {
        column: c,
        source: MatrixSource::default(),
    };
    let out = pram(&ds, &[spec], Some(s), 300, &Progress::new()).unwrap();
    let a = &out.attributes[0];
    assert_eq!(a.matrices.len(), 2);
    for sm in &a.matrices {
        let f: Vec<f64> = sm.frequencies.iter().map(|&x| x as f64).collect();
        assert!(invariance(&sm.matrix, &f).unwrap().holds(1e-12));
    }
}

/// Missing cells stay missing and no value becomes missing, in sdcMicro
/// (golden) and in anonlab.
#[test]
fn missing_cells_stay_missing() {
    let g = golden();
    assert_eq!(
        g["missing"]["stayed_missing"],
        g["missing"]["missing_cells"]
    );
    assert_eq!(g["missing"]["became_missing"], 0);
    let ds = testdata();
    let c = ds.column_index("roof").unwrap();
    let col = ds.col(c);
    let rows: Vec<Vec<String>> = (0..ds.n_rows())
        .map(|r| {
            vec![if r < 50 {
                String::new()
            } else {
                col.display(col.code(r)).to_string()
            }]
        })
        .collect();
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    let na = Dataset::from_rows(&["roof"], &rows).unwrap();
    let spec = PramSpec {
        column: 0,
        source: MatrixSource::default(),
    };
    let out = pram(&na, &[spec], None, 400, &Progress::new()).unwrap();
    let a = &out.attributes[0];
    assert_eq!(a.missing, 50);
    let m = na.col(0).missing_code();
    for (r, &p) in a.codes.iter().enumerate() {
        assert_eq!(p == m, r < 50, "record {r}");
    }
    assert!(a.changed > 0);
}

/// (b) anonlab's own matrices on the golden frequencies satisfy sdcMicro's
/// construction: the diagonal drawn first from the run's seed lies in
/// [pd, 1) and rebuilds the matrix exactly, rows sum to 1, entries are
/// probabilities, the matrix is invariant (1e-12) and its diagonal at
/// least 1 − alpha.
#[test]
fn own_matrices_follow_sdcmicro_construction() {
    let ds = testdata();
    for name in ["roof", "walls", "water", "electcon", "relat"] {
        let c = ds.column_index(name).unwrap();
        let freq = counts(&ds, c, None);
        for (seed, pd, alpha) in [(1, 0.8, 0.5), (2, 0.3, 0.9), (3, 0.0, 1.0), (4, 1.0, 0.5)] {
            let spec = PramSpec {
                column: c,
                source: MatrixSource::Invariant {
                    pd: MinDiagonal::Scalar(pd),
                    alpha,
                },
            };
            let out = pram(&ds, &[spec], None, seed, &Progress::new()).unwrap();
            let m = &out.attributes[0].matrices[0].matrix;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let pds = draw_diagonal(&MinDiagonal::Scalar(pd), m.len(), &mut rng);
            assert!(pds.iter().all(|&d| d >= pd && d <= 1.0), "{name}: {pds:?}");
            assert_eq!(
                m.entries,
                invariant_from_diagonal(&pds, &freq, alpha),
                "{name}"
            );
            for i in 0..m.len() {
                let row = m.row(i);
                assert!(
                    (row.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                    "{name} row {i}"
                );
                assert!(row.iter().all(|v| (0.0..=1.0 + 1e-15).contains(v)));
                assert!(m.get(i, i) >= 1.0 - alpha - 1e-12, "{name} diagonal {i}");
            }
            assert!(
                invariance(m, &freq).unwrap().holds(1e-12),
                "{name} seed {seed}"
            );
        }
    }
}

/// A hostile user matrix file: each refused with the file, and the row,
/// column and value where there is one.
#[test]
fn user_matrix_file_bad_inputs() {
    let cats = ["a", "b"];
    let code_of = |s: &str| cats.iter().position(|c| *c == s).map(|i| i as u32);
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str, text: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        read_matrix_csv(&path, &cats, &code_of)
            .unwrap_err()
            .to_string()
    };
    let cases: [(&str, &[u8], &[&str]); 9] = [
        ("empty.csv", b"", &["empty"]),
        ("ragged.csv", b",a,b\na,1\nb,0,1\n", &["row 2", "2 fields"]),
        (
            "nan.csv",
            b",a,b\na,NaN,1\nb,0,1\n",
            &["row 2", "column 'a'", "NaN"],
        ),
        (
            "negative.csv",
            b",a,b\na,1.5,-0.5\nb,0,1\n",
            &["row 2", "column 'a'", "1.5"],
        ),
        (
            "sum.csv",
            b",a,b\na,1,0\nb,0.3,0.3\n",
            &["row 3", "sums to 0.6"],
        ),
        ("missing.csv", b",a\na,1\n", &["header lacks", "'b'"]),
        ("norow.csv", b",a,b\na,1,0\n", &["no row", "'b'"]),
        (
            "unknown.csv",
            b",a,b\nc,1,0\n",
            &["row 2", "'c' is not a category"],
        ),
        ("binary.csv", b",a,b\na,\xff\xfe,1\n", &["row 2"]),
    ];
    for (name, text, want) in cases {
        let e = read(name, text);
        assert!(e.contains(name), "{name}: {e}");
        for w in want {
            assert!(e.contains(w), "{name}: '{w}' not in {e}");
        }
    }
    // Larger than the limit: refused before it is read.
    let huge = dir.path().join("huge.csv");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(MAX_MATRIX_FILE_BYTES + 1)
        .unwrap();
    let e = read_matrix_csv(&huge, &cats, &code_of)
        .unwrap_err()
        .to_string();
    assert!(e.contains("huge.csv") && e.contains("bytes"), "{e}");
    let e = read_matrix_csv(&dir.path().join("absent.csv"), &cats, &code_of).unwrap_err();
    assert!(e.to_string().contains("absent.csv"), "{e}");
}

/// A user matrix that moves a value out of its stratum is refused, naming
/// the stratum and both categories.
#[test]
fn user_matrix_leaving_a_stratum_is_refused() {
    let ds = Dataset::from_rows(&["s", "v"], &[vec!["A", "x"], vec!["B", "y"]]).unwrap();
    let cats = categories(&ds, 1);
    let m = TransitionMatrix::new(cats.clone(), vec![0.5, 0.5, 0.0, 1.0]).unwrap();
    let spec = PramSpec {
        column: 1,
        source: MatrixSource::Given(m),
    };
    let e = pram(
        &ds,
        std::slice::from_ref(&spec),
        Some(0),
        1,
        &Progress::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("'A'") && e.contains("'x'") && e.contains("'y'"),
        "{e}"
    );
    // Without strata the same matrix applies.
    assert!(pram(&ds, &[spec], None, 1, &Progress::new()).is_ok());
}

/// Categorical information loss on a PRAM'd Adult: the changed share is
/// the run's count over n, the distance lies in [0, changed share].
#[test]
fn categorical_loss_of_pram() {
    let ds = testdata();
    let names = ["roof", "walls", "water"];
    let specs: Vec<PramSpec> = names
        .iter()
        .map(|n| PramSpec {
            column: ds.column_index(n).unwrap(),
            source: MatrixSource::default(),
        })
        .collect();
    let out = pram(&ds, &specs, None, 5, &Progress::new()).unwrap();
    let orig: Vec<&[u32]> = specs.iter().map(|s| ds.col(s.column).codes()).collect();
    let publ: Vec<&[u32]> = out.attributes.iter().map(|a| a.codes.as_slice()).collect();
    let mut any = 0.0f64;
    for (a, (o, p)) in out.attributes.iter().zip(orig.iter().zip(&publ)) {
        let share = changed_share(o, p).unwrap();
        assert_eq!(share, a.changed as f64 / ds.n_rows() as f64);
        any = any.max(share);
    }
    let d = contingency_distance(&orig, &publ).unwrap();
    let changed_any = (0..ds.n_rows())
        .filter(|&r| orig.iter().zip(&publ).any(|(o, p)| o[r] != p[r]))
        .count() as f64
        / ds.n_rows() as f64;
    assert!(d > 0.0 && d <= changed_any, "{d} vs {changed_any}");
    assert!(any > 0.0);
}

/// Small files: a stratum column (1..4 strata) and a value column whose
/// categories depend on the stratum (stratum s holds values s*4 .. s*4+3,
/// a few shared), some cells missing.
fn small_file() -> impl Strategy<Value = Vec<(u8, Option<u8>)>> {
    prop::collection::vec((0u8..4, prop::option::weighted(0.9, 0u8..5)), 1..120)
}

fn dataset(rows: &[(u8, Option<u8>)]) -> Dataset {
    let text: Vec<Vec<String>> = rows
        .iter()
        .map(|(s, v)| {
            vec![
                format!("s{s}"),
                v.map_or(String::new(), |v| format!("v{}", s * 3 + v)),
            ]
        })
        .collect();
    let rows: Vec<Vec<&str>> = text
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&["s", "v"], &rows).unwrap()
}

fn invariant(pd: f64, alpha: f64) -> PramSpec {
    PramSpec {
        column: 1,
        source: MatrixSource::Invariant {
            pd: MinDiagonal::Scalar(pd),
            alpha,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Values stay inside their stratum: a published category is one the
    /// record's stratum holds; missing stays missing.
    #[test]
    fn values_stay_inside_their_stratum(rows in small_file(), pd in 0.0..=1.0f64, alpha in 0.0..=1.0f64, seed in any::<u64>()) {
        let ds = dataset(&rows);
        let out = pram(&ds, &[invariant(pd, alpha)], Some(0), seed, &Progress::new()).unwrap();
        let a = &out.attributes[0];
        let col = ds.col(1);
        for (r, (&o, &p)) in col.codes().iter().zip(&a.codes).enumerate() {
            if col.is_missing(o) {
                prop_assert!(col.is_missing(p));
            } else {
                let held = &a.matrices[out.stratum_of[r] as usize].frequencies;
                prop_assert!(held[p as usize] > 0, "record {} published outside its stratum", r);
            }
        }
    }

    /// The same seed gives the same output; another seed another draw of
    /// the same shape.
    #[test]
    fn same_seed_same_output(rows in small_file(), seed in any::<u64>()) {
        let ds = dataset(&rows);
        let a = pram(&ds, &[invariant(0.5, 0.8)], Some(0), seed, &Progress::new()).unwrap();
        let b = pram(&ds, &[invariant(0.5, 0.8)], Some(0), seed, &Progress::new()).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.seed, seed);
    }

    /// Invariant PRAM keeps the expected category totals of each stratum:
    /// Σ_i f_i P_ij = f_j.
    #[test]
    fn invariant_pram_keeps_expected_totals(rows in small_file(), pd in 0.0..=1.0f64, alpha in 0.0..=1.0f64, seed in any::<u64>()) {
        let ds = dataset(&rows);
        let out = pram(&ds, &[invariant(pd, alpha)], Some(0), seed, &Progress::new()).unwrap();
        for sm in &out.attributes[0].matrices {
            let f: Vec<f64> = sm.frequencies.iter().map(|&x| x as f64).collect();
            let e = expected_transitions(&sm.matrix, &f).unwrap();
            let l = f.len();
            for j in 0..l {
                let total: f64 = (0..l).map(|i| e[i * l + j]).sum();
                prop_assert!((total - f[j]).abs() <= 1e-9 * f.iter().sum::<f64>().max(1.0), "category {}: {} vs {}", j, total, f[j]);
            }
        }
    }

    /// A user matrix written to a file (rows and columns in a shuffled
    /// order) is read back exactly and applied: every observed transition
    /// has a positive probability, and a row of probability 1 on one
    /// category always goes there.
    #[test]
    fn user_matrix_is_read_and_applied(rows in small_file(), seed in any::<u64>()) {
        let ds = dataset(&rows);
        let cats = categories(&ds, 1);
        let l = cats.len();
        prop_assume!(l > 0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut entries = vec![0.0; l * l];
        for i in 0..l {
            if i % 3 == 0 {
                entries[i * l + (i + 1) % l] = 1.0;
                continue;
            }
            let w: Vec<f64> = (0..l).map(|_| if rng.random::<f64>() < 0.5 { rng.random::<f64>() } else { 0.0 }).collect();
            let s: f64 = w.iter().sum();
            for j in 0..l {
                entries[i * l + j] = if s > 0.0 { w[j] / s } else if j == i { 1.0 } else { 0.0 };
            }
            // Exactly 1 in the sum of the row as written.
            let sum: f64 = entries[i * l..(i + 1) * l].iter().sum();
            prop_assume!((sum - 1.0).abs() <= 1e-12);
        }
        let mut order: Vec<usize> = (0..l).collect();
        order.rotate_left(seed as usize % l);
        let names: Vec<String> = order.iter().map(|&i| cats[i].clone()).collect();
        let m: Vec<Vec<f64>> = order.iter().map(|&i| order.iter().map(|&j| entries[i * l + j]).collect()).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.csv");
        write_matrix(&path, &names, &m);
        let col = ds.col(1);
        let refs: Vec<&str> = cats.iter().map(String::as_str).collect();
        let read = read_matrix_csv(&path, &refs, &|s| col.code_of(s)).unwrap();
        prop_assert_eq!(&read.entries, &entries);
        let spec = PramSpec { column: 1, source: MatrixSource::Given(read) };
        let out = pram(&ds, &[spec], None, seed, &Progress::new()).unwrap();
        for (&o, &p) in col.codes().iter().zip(&out.attributes[0].codes) {
            if col.is_missing(o) {
                prop_assert_eq!(o, p);
                continue;
            }
            let (o, p) = (o as usize, p as usize);
            prop_assert!(entries[o * l + p] > 0.0, "{} -> {} has probability 0", o, p);
            if o % 3 == 0 {
                prop_assert_eq!(p, (o + 1) % l);
            }
        }
    }
}
