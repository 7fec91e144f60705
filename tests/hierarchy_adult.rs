//! The shared Adult hierarchies (ARX's files): read → write → read keeps
//! every leaf's path; every file validates against Adult; and the per-level
//! class counts anonlab previews agree with a count done here from the raw
//! text of both files (split on ';', no anonlab code involved).

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anonlab::hierarchy::{arx, HierarchySet};

fn adult_dir() -> PathBuf {
    common::adult_path().parent().unwrap().to_path_buf()
}

fn hierarchy_files() -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(adult_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let attr = name
                .strip_prefix("adult_hierarchy_")?
                .strip_suffix(".csv")?;
            Some((attr.to_string(), p))
        })
        .collect();
    files.sort();
    files
}

fn raw_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

#[test]
fn every_adult_hierarchy_round_trips_through_arx_csv() {
    if !common::have_adult() {
        return;
    }
    let files = hierarchy_files();
    assert_eq!(files.len(), 9, "{files:?}");
    for (attr, path) in &files {
        let h = arx::read(path).unwrap();
        assert_eq!(h.attribute(), attr);
        let raw = raw_rows(path);
        assert_eq!(h.leaves().len(), raw.len(), "{attr}");
        for row in &raw {
            for (level, label) in row.iter().enumerate() {
                assert_eq!(h.ancestor(&row[0], level), Some(label.as_str()), "{attr}");
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join(format!("hierarchy_{attr}.csv"));
        arx::save(&h, &out, &anonlab::data::Inputs::new()).unwrap();
        let back = arx::read(&out).unwrap();
        assert_eq!(back, h, "{attr}");
        // None of Adult's labels needs quoting, so the text is ARX's own.
        let text = std::fs::read_to_string(&out).unwrap();
        let want: Vec<String> = raw.iter().map(|r| r.join(";")).collect();
        assert_eq!(text.lines().collect::<Vec<_>>(), want, "{attr}");
    }
}

#[test]
fn adult_hierarchies_validate_and_preview_what_a_raw_count_gives() {
    let Some(ds) = common::adult() else {
        return;
    };
    let set = HierarchySet::load_dir(&adult_dir()).unwrap();
    assert_eq!(set.len(), 9);
    let all: Vec<usize> = (0..ds.n_cols()).collect();
    let bound = set.bind(&ds, &all).unwrap();

    let text = std::fs::read_to_string(common::adult_path()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let records: Vec<Vec<&str>> = lines.map(|l| l.split(';').collect()).collect();
    for (c, b) in bound.iter().enumerate() {
        let raw = raw_rows(
            &hierarchy_files()
                .into_iter()
                .find(|(a, _)| a == header[c])
                .unwrap()
                .1,
        );
        let path: HashMap<&str, &Vec<String>> = raw.iter().map(|r| (r[0].as_str(), r)).collect();
        let stats = b.level_stats(&ds.col(c).frequencies());
        assert_eq!(stats.len(), raw[0].len(), "{}", header[c]);
        for s in &stats {
            let mut count: HashMap<&str, u64> = HashMap::new();
            for r in &records {
                *count.entry(path[r[c]][s.level].as_str()).or_default() += 1;
            }
            let mut sizes: Vec<u64> = count.into_values().collect();
            sizes.sort_unstable();
            assert_eq!(s.classes, sizes.len(), "{} level {}", header[c], s.level);
            assert_eq!(s.min, sizes[0], "{} level {}", header[c], s.level);
            assert_eq!(
                s.max,
                *sizes.last().unwrap(),
                "{} level {}",
                header[c],
                s.level
            );
            assert_eq!(
                s.median,
                sizes[(sizes.len() - 1) / 2],
                "{} level {}",
                header[c],
                s.level
            );
        }
    }
    // Figures to read: education's level 1 has 5 groups of 484..13,097 records.
    let edu = ds.column_index("education").unwrap();
    let s = bound[edu].level_stats(&ds.col(edu).frequencies())[1];
    assert_eq!((s.classes, s.min, s.max), (5, 484, 13_097));
}

#[test]
fn a_hierarchy_for_another_column_names_the_values_it_lacks() {
    let Some(ds) = common::adult() else {
        return;
    };
    let h = arx::read(&adult_dir().join("adult_hierarchy_race.csv")).unwrap();
    let m = h
        .validate(ds.column("workclass").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        m.contains(
            "hierarchy of 'race' lacks 7 value(s) of column 'workclass': 'Federal-gov' (943 rows)"
        ),
        "{m}"
    );
}
