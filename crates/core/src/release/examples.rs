//! The cross-bucket paper's published tables for its Fig. 1b microdata
//! (`data::examples::cross_bucket_fig1b`), as Releases: Fig. 2a
//! (generalization), Fig. 2b (bucketization) and Fig. 4 (cross-bucket
//! generalization). Tests of the verifier, breach probability and the
//! algorithms compare against them. They claim nothing; callers add the
//! claims they test. And the LGB release of `data::examples::lgb_patients`
//! (the LGB paper's Figure 2 in spirit), [`lgb_patients_fig2`].

use super::{Bucket, Cell, EquivalenceGroup, LocalBuckets, QiSubset, Release};
use crate::data::Dataset;

// Fixture builders, shared with the crate's unit tests that write cells by
// value: a value missing from the table is a bug in the fixture, so panic.

/// The code of value `v` in column `col`.
pub(crate) fn code(ds: &Dataset, col: usize, v: &str) -> u32 {
    ds.col(col)
        .code_of(v)
        .unwrap_or_else(|| panic!("'{v}' is not a value of column {col} of the fixture"))
}

/// The interval cell from value `lo` to value `hi` of column `col`.
pub(crate) fn interval(ds: &Dataset, col: usize, lo: &str, hi: &str) -> Cell {
    Cell::Interval {
        lo: code(ds, col, lo),
        hi: code(ds, col, hi),
    }
}

/// The exact cell of value `v` of column `col`.
pub(crate) fn value(ds: &Dataset, col: usize, v: &str) -> Cell {
    Cell::Value {
        code: code(ds, col, v),
    }
}

fn base(ds: &Dataset) -> Release {
    let mut r = Release::new("hand", ds, vec![1, 2, 3], vec![4]);
    r.identifiers = vec![0];
    r
}

/// Fig. 2a: generalized, no buckets, groups {101–103}, {104, 105},
/// {106–108} (rows 0–2, 3–4, 5–7).
pub fn cross_bucket_fig2a(ds: &Dataset) -> Release {
    let mut r = base(ds);
    r.groups = vec![
        EquivalenceGroup {
            rows: vec![0, 1, 2],
            cells: vec![
                interval(ds, 1, "16", "24"),
                Cell::Suppressed,
                interval(ds, 3, "43302", "43307"),
            ],
        },
        EquivalenceGroup {
            rows: vec![3, 4],
            cells: vec![
                interval(ds, 1, "26", "29"),
                value(ds, 2, "Male"),
                interval(ds, 3, "43307", "43309"),
            ],
        },
        EquivalenceGroup {
            rows: vec![5, 6, 7],
            cells: vec![
                interval(ds, 1, "31", "35"),
                Cell::Suppressed,
                interval(ds, 3, "43309", "43312"),
            ],
        },
    ];
    r
}

/// Fig. 2b: bucketization, QI values kept, buckets {101–104} and
/// {105–108} of four distinct diseases each.
pub fn cross_bucket_fig2b(ds: &Dataset) -> Release {
    let mut r = base(ds);
    r.groups = vec![EquivalenceGroup {
        rows: (0..8).collect(),
        cells: vec![Cell::Original; 3],
    }];
    r.buckets = vec![
        Bucket {
            rows: vec![0, 1, 2, 3],
        },
        Bucket {
            rows: vec![4, 5, 6, 7],
        },
    ];
    r
}

/// Fig. 4: groups {101, 103}, {102, 104}, {105, 108}, {106, 107}; the
/// buckets are the table's consecutive pairs {101, 102}, {103, 104},
/// {105, 106}, {107, 108} (Helen, 106, has the third and fourth as
/// matching buckets, as the paper's walk-through says).
pub fn cross_bucket_fig4(ds: &Dataset) -> Release {
    let mut r = base(ds);
    let g = |rows: Vec<u32>, age: (&str, &str), sex: &str, zip: Cell| EquivalenceGroup {
        rows,
        cells: vec![interval(ds, 1, age.0, age.1), value(ds, 2, sex), zip],
    };
    r.groups = vec![
        g(
            vec![0, 2],
            ("16", "24"),
            "Female",
            interval(ds, 3, "43306", "43307"),
        ),
        g(
            vec![1, 3],
            ("22", "26"),
            "Male",
            interval(ds, 3, "43302", "43307"),
        ),
        g(vec![4, 7], ("29", "35"), "Male", value(ds, 3, "43309")),
        g(vec![5, 6], ("31", "34"), "Female", value(ds, 3, "43312")),
    ];
    r.buckets = (0..4)
        .map(|b| Bucket {
            rows: vec![2 * b, 2 * b + 1],
        })
        .collect();
    r
}

/// The LGB release of `data::examples::lgb_patients` with k = 2, l = 2
/// (derived by hand in `tests/lgb_fixture.rs`, which checks LGB_MDP makes
/// exactly this): quasi-identifiers Gender, Age, Zip (Age and Zip
/// semi-sensitive), Disease sensitive; ID and the flag columns dropped.
/// Groups {1001, 1004} `*` × [16-24] × [43302-43307], {1005, 1008} M ×
/// [29-35] × 43309, {1002, 1006} F × [24-31] × (Zip hidden), {1003, 1007}
/// `*` × (Age hidden) × [43302-43312]; local buckets Age {1003, 1007}, Zip
/// {1002, 1006}, Disease {1001, 1002}, {1003, 1005}, {1007, 1008}, {1004,
/// 1006}.
pub fn lgb_patients_fig2(ds: &Dataset) -> Release {
    let c = |name: &str| {
        ds.column_index(name)
            .unwrap_or_else(|_| panic!("'{name}' is not a column of the LGB patients table"))
    };
    let (gender, age, zip) = (c("Gender"), c("Age"), c("Zip"));
    let mut r = Release::new("hand", ds, vec![gender, age, zip], vec![c("Disease")]);
    r.identifiers = vec![c("ID"), c("Age hidden"), c("Zip hidden")];
    r.semi_sensitive = vec![age, zip];
    let group = |rows: Vec<u32>, cells: Vec<Cell>| EquivalenceGroup { rows, cells };
    r.groups = vec![
        group(
            vec![0, 3],
            vec![
                Cell::Suppressed,
                interval(ds, age, "16", "24"),
                interval(ds, zip, "43302", "43307"),
            ],
        ),
        group(
            vec![4, 7],
            vec![
                value(ds, gender, "M"),
                interval(ds, age, "29", "35"),
                value(ds, zip, "43309"),
            ],
        ),
        group(
            vec![1, 5],
            vec![
                value(ds, gender, "F"),
                interval(ds, age, "24", "31"),
                Cell::Suppressed,
            ],
        ),
        group(
            vec![2, 6],
            vec![
                Cell::Suppressed,
                Cell::Suppressed,
                interval(ds, zip, "43302", "43312"),
            ],
        ),
    ];
    r.qi_partition = vec![
        QiSubset {
            qi: vec![gender, age, zip],
            groups: vec![0, 1],
        },
        QiSubset {
            qi: vec![gender, age],
            groups: vec![2],
        },
        QiSubset {
            qi: vec![gender, zip],
            groups: vec![3],
        },
    ];
    let buckets = |sets: &[&[u32]]| -> Vec<Bucket> {
        sets.iter().map(|s| Bucket { rows: s.to_vec() }).collect()
    };
    r.local_buckets = vec![
        LocalBuckets {
            column: age,
            buckets: buckets(&[&[2, 6]]),
        },
        LocalBuckets {
            column: zip,
            buckets: buckets(&[&[1, 5]]),
        },
        LocalBuckets {
            column: c("Disease"),
            buckets: buckets(&[&[0, 1], &[2, 4], &[6, 7], &[3, 5]]),
        },
    ];
    r
}
