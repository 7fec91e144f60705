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

/// Eight patients in the spirit of Fig. 1b of the LGB paper: `ID`
/// (identifier), `Gender` (QI), `Age` and `Zip` (semi-sensitive: the
/// patient decides per cell, flags `Age hidden` / `Zip hidden` = `yes`),
/// `Disease` (sensitive). Rows 2 and 6 hide their age, rows 1 and 5 their
/// zip code. The LGB fixture test derives its local groups and buckets by
/// hand.
pub fn lgb_patients() -> Dataset {
    let rows = [
        ["1001", "F", "16", "no", "43302", "no", "Flu"],
        ["1002", "F", "24", "no", "43306", "yes", "Dyspepsia"],
        ["1003", "M", "22", "yes", "43302", "no", "Pneumonia"],
        ["1004", "M", "24", "no", "43307", "no", "Pneumonia"],
        ["1005", "M", "29", "no", "43309", "no", "Bronchitis"],
        ["1006", "F", "31", "no", "43312", "yes", "Gastritis"],
        ["1007", "F", "34", "yes", "43312", "no", "Flu"],
        ["1008", "M", "35", "no", "43309", "no", "Dyspepsia"],
    ];
    let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
    Dataset::from_rows(
        &[
            "ID",
            "Gender",
            "Age",
            "Age hidden",
            "Zip",
            "Zip hidden",
            "Disease",
        ],
        &rows,
    )
    .unwrap_or_else(|e| unreachable!("the LGB patients table is well formed: {e}"))
}
