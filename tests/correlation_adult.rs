//! Golden: the correlation matrices of UCI Adult's 9 attributes agree with
//! an independent Python derivation (tests/golden/adult_correlation.py, which
//! sums φ² over every cell of the table as the paper writes it, with exact
//! fractions, where anonlab expands the sum over the non-empty cells).

use crate::common;

use anonlab::stats::{correlation_matrix, Discretization, Measure};

const GOLDEN: &str = include_str!("golden/adult_correlation.json");

#[test]
fn adult_matrices_match_the_python_derivation() {
    let Some(ds) = common::adult() else { return };
    let golden: serde_json::Value = serde_json::from_str(GOLDEN).unwrap();
    assert_eq!(golden["rows"].as_u64(), Some(ds.n_rows() as u64));
    let names: Vec<&str> = golden["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let columns: Vec<usize> = names.iter().map(|n| ds.column_index(n).unwrap()).collect();
    let d = Discretization::default();
    assert_eq!(golden["bins"].as_u64(), Some(d.bins as u64));
    for m in Measure::ALL {
        let got = correlation_matrix(&ds, &columns, m, &d).unwrap();
        let want = &golden["matrices"][m.name()];
        for (i, row) in want.as_array().unwrap().iter().enumerate() {
            for (j, w) in row.as_array().unwrap().iter().enumerate() {
                let g = got.get(i, j);
                match (w.as_f64(), g) {
                    (None, None) => {}
                    (Some(w), Some(g)) => assert!(
                        (w - g).abs() < 1e-9,
                        "{m} {} × {}: anonlab {g}, python {w}",
                        names[i],
                        names[j]
                    ),
                    _ => panic!("{m} {} × {}: anonlab {g:?}, python {w}", names[i], names[j]),
                }
            }
        }
        if m == Measure::Phi2 {
            let age = names.iter().position(|&n| n == "age").unwrap();
            let bins = &got.discretization.columns[age].bins;
            let want = golden["age_bins"].as_array().unwrap();
            assert_eq!(bins.len(), want.len());
            for (b, w) in bins.iter().zip(want) {
                assert_eq!(b.from, w["from"].as_f64().unwrap());
                assert_eq!(b.to, w["to"].as_f64().unwrap());
                assert_eq!(b.records, w["records"].as_u64().unwrap());
            }
        }
    }
}

#[test]
fn age_ranks_salary_then_marital_status_first() {
    // The ranking Algorithm 4 starts from (φ², Adult): read off the golden
    // matrix's age row, 0.1003 (salary-class) and 0.0743 (marital-status).
    let Some(ds) = common::adult() else { return };
    let cols: Vec<usize> = (0..ds.n_cols()).collect();
    let m = correlation_matrix(&ds, &cols, Measure::Phi2, &Discretization::default()).unwrap();
    let age = ds.column_index("age").unwrap();
    let ranked: Vec<&str> = m.ranked(age)[..2]
        .iter()
        .map(|&(j, _)| m.columns[j].as_str())
        .collect();
    assert_eq!(ranked, ["salary-class", "marital-status"]);
}
