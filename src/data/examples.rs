//! The papers' running examples as datasets, so tests, docs and the TUI's
//! demos use one copy of each instead of retyping it.

use super::Dataset;

/// Fig. 1b of the cross-bucket generalization paper: eight hospital
/// records, columns `ID`, `Age`, `Sex`, `Zip code` (QIs in the paper:
/// Age, Sex, Zip code) and `Disease` (sensitive).
pub fn cross_bucket_fig1b() -> Dataset {
    let rows = [
        ["101", "16", "Female", "43307", "Flu"],
        ["102", "22", "Male", "43302", "Dyspepsia"],
        ["103", "24", "Female", "43306", "Hepatitis"],
        ["104", "26", "Male", "43307", "Bronchitis"],
        ["105", "29", "Male", "43309", "Bronchitis"],
        ["106", "31", "Female", "43312", "Pneumonia"],
        ["107", "34", "Female", "43312", "Gastritis"],
        ["108", "35", "Male", "43309", "Dyspepsia"],
    ];
    let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
    // The table is a constant of this file: it always loads.
    Dataset::from_rows(&["ID", "Age", "Sex", "Zip code", "Disease"], &rows)
        .unwrap_or_else(|e| unreachable!("the Fig. 1b table is well formed: {e}"))
}
