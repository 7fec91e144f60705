use std::path::Path;

use super::*;

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("c{i}")).collect()
}

#[test]
fn construction_follows_sdcmicro_by_hand() {
    // L = 2, pds = (0.9, 0.7), p = (0.75, 0.25), alpha = 1:
    // P = [[0.9, 0.1], [0.3, 0.7]]; s = (0.75, 0.25) P = (0.75, 0.25);
    // Qest[0] = (0.9·0.75, 0.3·0.25)/0.75 = (0.9, 0.1),
    // Qest[1] = (0.1·0.75, 0.7·0.25)/0.25 = (0.3, 0.7); R = P·Qest.
    let r = invariant_from_diagonal(&[0.9, 0.7], &[3.0, 1.0], 1.0);
    let want = [0.84, 0.16, 0.48, 0.52];
    for (a, b) in r.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{r:?}");
    }
    // alpha = 0.5 mixes with the identity.
    let h = invariant_from_diagonal(&[0.9, 0.7], &[3.0, 1.0], 0.5);
    assert!((h[0] - (0.5 * 0.84 + 0.5)).abs() < 1e-12);
    assert!((h[1] - 0.08).abs() < 1e-12);
}

#[test]
fn drawn_matrices_are_invariant_and_stochastic() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let freq = [10.0, 0.0, 5.0, 30.0, 1.0];
    for pd in [0.0, 0.5, 0.8, 1.0] {
        let m = invariant_matrix(names(5), &freq, &MinDiagonal::Scalar(pd), 0.5, &mut rng).unwrap();
        for i in 0..5 {
            let s: f64 = m.row(i).iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "pd {pd} row {i}: {s}");
            assert!(m.row(i).iter().all(|v| (0.0..=1.0 + 1e-15).contains(v)));
        }
        assert!(invariance(&m, &freq).unwrap().holds(1e-12), "pd {pd}");
        // The absent category receives nothing from present ones.
        for i in [0, 2, 3, 4] {
            assert_eq!(m.get(i, 1), 0.0, "pd {pd}");
        }
    }
}

#[test]
fn parameters_out_of_range_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let f = [1.0, 1.0];
    for (pd, alpha) in [
        (1.5, 0.5),
        (-0.1, 0.5),
        (f64::NAN, 0.5),
        (0.8, 1.2),
        (0.8, f64::NAN),
    ] {
        assert!(invariant_matrix(names(2), &f, &MinDiagonal::Scalar(pd), alpha, &mut rng).is_err());
    }
    let short = MinDiagonal::PerCategory(vec![0.5]);
    assert!(invariant_matrix(names(2), &f, &short, 0.5, &mut rng).is_err());
}

fn parse(text: &str) -> Result<TransitionMatrix> {
    let cats = ["a", "b", "c"];
    let code_of = |s: &str| cats.iter().position(|c| *c == s).map(|i| i as u32);
    parse_matrix_csv(text.as_bytes(), Path::new("m.csv"), &cats, &code_of)
}

#[test]
fn user_matrix_any_order_to_dictionary_order() {
    let m = parse("\"\",c,a,b\nb,0,0.5,0.5\na,0,1,0\nc,1,0,0\n").unwrap();
    assert_eq!(m.row(0), &[1.0, 0.0, 0.0]);
    assert_eq!(m.row(1), &[0.5, 0.5, 0.0]);
    assert_eq!(m.row(2), &[0.0, 0.0, 1.0]);
}

#[test]
fn user_matrix_bad_input_names_row_column_value() {
    let cases = [
        ("", "empty"),
        ("x,a,b,c\na,1,0,0\nb,0,1,0\n", "no row for categories"),
        ("x,a,b\na,1,0\nb,0,1\n", "header lacks"),
        ("x,a,b,c,d\n", "'d' is not a category"),
        ("x,a,b,a\n", "appears twice"),
        ("x,a,b,c\na,1,0\n", "row 2: the row has 3 fields"),
        (
            "x,a,b,c\na,1,0,NaN\n",
            "column 'c': NaN (row 'a') is not a probability",
        ),
        (
            "x,a,b,c\na,1.5,-0.5,0\n",
            "1.5 (row 'a') is not a probability",
        ),
        (
            "x,a,b,c\na,0.5,zero,0.5\n",
            "'zero' (row 'a') is not a number",
        ),
        ("x,a,b,c\na,0.5,0.2,0.2\n", "sums to"),
        ("x,a,b,c\na,1,0,0\na,1,0,0\n", "second row"),
        ("x,a,b,c\nz,1,0,0\n", "'z' is not a category"),
        // Blank lines are skipped and the line named is the file's.
        ("x,a,b,c\n\na,1,0,0\n\nb,0,2,0\n", "row 5"),
    ];
    for (text, want) in cases {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(e.contains("m.csv"), "{e}");
    }
}

#[test]
fn application_keeps_missing_and_strata() {
    let rows: Vec<Vec<&str>> = (0..200)
        .map(|i| {
            let s = if i % 2 == 0 { "A" } else { "B" };
            let v = match (i % 2, i % 3) {
                (_, 0) if i % 7 == 0 => "",
                (0, x) => ["1", "2", "3"][x],
                (_, x) => ["4", "5", "6"][x],
            };
            vec![s, v]
        })
        .collect();
    let ds = Dataset::from_rows(&["s", "v"], &rows).unwrap();
    let spec = PramSpec {
        column: 1,
        source: MatrixSource::Invariant {
            pd: MinDiagonal::Scalar(0.1),
            alpha: 1.0,
        },
    };
    let out = pram(&ds, &[spec], Some(0), 3, &Progress::new()).unwrap();
    let a = &out.attributes[0];
    let col = ds.col(1);
    assert_eq!(a.matrices.len(), 2);
    assert!(a.changed > 0);
    for (r, (&o, &p)) in col.codes().iter().zip(&a.codes).enumerate() {
        if col.is_missing(o) {
            assert!(col.is_missing(p));
        } else {
            let m = &a.matrices[out.stratum_of[r] as usize];
            assert!(m.frequencies[p as usize] > 0, "record {r} left its stratum");
        }
    }
}
