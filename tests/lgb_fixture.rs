//! LGB on a hand-made table in the spirit of the LGB paper's Figures 1–4
//! (`data::examples::lgb_patients`: eight patients, Gender a QI, Age and Zip
//! semi-sensitive with per-cell flags, Disease sensitive), with its local
//! groups and local buckets worked out by hand below; and the bad
//! inputs, each with its defined behaviour.

use anonlab::algorithms::lgb::{lgb_mdp, lgb_ncp};
use anonlab::algorithms::{by_id, Options, Request};
use anonlab::data::examples::lgb_patients;
use anonlab::data::{Dataset, Inputs};
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{write_csv, write_json, Bucket, Cell, Guarantee, Release};
use fixedbitset::FixedBitSet;

fn col(ds: &Dataset, name: &str) -> usize {
    ds.column_index(name).unwrap()
}

/// Rows whose flag column says `yes`.
fn flagged(ds: &Dataset, flag: &str) -> FixedBitSet {
    let c = ds.col(col(ds, flag));
    let mut bits = FixedBitSet::with_capacity(ds.n_rows());
    for r in 0..ds.n_rows() {
        bits.set(r, c.display(c.code(r)) == "yes");
    }
    bits
}

/// Gender the QI, Age and Zip semi-sensitive by their flags, Disease
/// sensitive; the ID and the flag columns are not published.
fn request(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
    Request {
        ds,
        qi: vec![col(ds, "Gender")],
        sensitive: vec![col(ds, "Disease")],
        identifiers: vec![col(ds, "ID"), col(ds, "Age hidden"), col(ds, "Zip hidden")],
        k,
        l,
        seed: 7,
        options: Options {
            semi_sensitive: vec![
                (col(ds, "Age"), flagged(ds, "Age hidden")),
                (col(ds, "Zip"), flagged(ds, "Zip hidden")),
            ],
            ..Default::default()
        },
    }
}

fn rows(buckets: &[Bucket]) -> Vec<Vec<u32>> {
    buckets.iter().map(|b| b.rows.clone()).collect()
}

fn cell(ds: &Dataset, column: &str, c: &Cell) -> String {
    c.render(ds.col(col(ds, column)), 0)
}

fn assert_verified(r: &Release, ds: &Dataset) {
    let v = verify(r, ds);
    assert!(v.all_hold(), "{v}");
}

/// The hand derivation, k = 2, l = 2 (rows are 0-based: row 0 is 1001).
///
/// QI partition (Definition 7), by which cells are sensitive, in order of
/// first appearance:
/// - S0, nothing hidden: rows 0, 3, 4, 7, QI {Gender, Age, Zip};
/// - S1, Zip hidden: rows 1, 5, QI {Gender, Age};
/// - S2, Age hidden: rows 2, 6, QI {Gender, Zip}.
///
/// Algorithm 3 in S0 (4 rows = 2k, one cut possible): the widest
/// dimensions are Gender (2 of 2 values: 1.0) and Age ((35 − 16) / the
/// table's 19: 1.0), Gender first on the tie. Gender's codes F, M, M, M have
/// lower median M, the node's largest, so no cut; Age's median is 24 (16,
/// 24 | 29, 35), two rows each side: cut. Groups of 2 cannot be cut again.
/// S1 and S2 have 2 rows: one group each. Groups in order:
/// - G1 {1001, 1004}: Gender {F, M} = all values, `*`; Age [16-24]; Zip
///   [43302-43307];
/// - G2 {1005, 1008}: M; [29-35]; 43309;
/// - G3 {1002, 1006}: F; [24-31]; Zip hidden (local bucket);
/// - G4 {1003, 1007}: `*`; Age hidden; [43302-43312].
///
/// Algorithm 2 on Disease (all 8 cells), values in name order Bronchitis
/// (row 4), Dyspepsia (1, 7), Flu (0, 6), Gastritis (5), Pneumonia (2, 3):
/// the lower median of the 8 cells is Flu; {Gastritis, Pneumonia,
/// Pneumonia} is not 2-eligible (Pneumonia 2 × 2 > 3), so no cut, and
/// divide_buckets takes one cell of the two values with most cells left,
/// ties to the name first: {Dyspepsia 1, Flu 0}, {Pneumonia 2, Bronchitis
/// 4}, {Dyspepsia 7, Flu 6}, {Gastritis 5, Pneumonia 3}; nothing is left.
/// Age's sensitive cells 22 (row 2) and 34 (row 6) and Zip's 43306 (row 1)
/// and 43312 (row 5): one bucket each, as one value per half is not
/// 2-eligible.
#[test]
fn lgb_mdp_on_the_patients_table_by_hand() {
    let ds = lgb_patients();
    let r = lgb_mdp(&request(&ds, 2, 2), &Progress::new()).unwrap();
    assert_verified(&r, &ds);
    assert_eq!(
        r.quasi_identifiers,
        vec![col(&ds, "Gender"), col(&ds, "Age"), col(&ds, "Zip")]
    );
    assert_eq!(r.semi_sensitive, vec![col(&ds, "Age"), col(&ds, "Zip")]);
    let groups: Vec<(Vec<u32>, Vec<String>)> = r
        .groups
        .iter()
        .map(|g| {
            let names = ["Gender", "Age", "Zip"];
            let cells = names
                .iter()
                .zip(&g.cells)
                .map(|(n, c)| cell(&ds, n, c))
                .collect();
            (g.rows.clone(), cells)
        })
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        groups,
        vec![
            (vec![0, 3], s(&["*", "[16-24]", "[43302-43307]"])),
            (vec![4, 7], s(&["M", "[29-35]", "43309"])),
            (vec![1, 5], s(&["F", "[24-31]", "*"])),
            (vec![2, 6], s(&["*", "*", "[43302-43312]"])),
        ]
    );
    let subsets: Vec<(Vec<usize>, Vec<u32>)> = r
        .qi_partition
        .iter()
        .map(|p| (p.qi.clone(), p.groups.clone()))
        .collect();
    let (g, a, z) = (col(&ds, "Gender"), col(&ds, "Age"), col(&ds, "Zip"));
    assert_eq!(
        subsets,
        vec![
            (vec![g, a, z], vec![0, 1]),
            (vec![g, a], vec![2]),
            (vec![g, z], vec![3])
        ]
    );
    let local = |name: &str| rows(&r.local_buckets_of(col(&ds, name)).unwrap().buckets);
    assert_eq!(local("Age"), vec![vec![2, 6]]);
    assert_eq!(local("Zip"), vec![vec![1, 5]]);
    assert_eq!(
        local("Disease"),
        vec![vec![0, 1], vec![2, 4], vec![6, 7], vec![3, 5]]
    );
    assert!(r.suppressed_rows.is_empty());
    // The one copy of this release the verifier, breach and screen tests use.
    let mut hand = anonlab::release::examples::lgb_patients_fig2(&ds);
    hand.algorithm = r.algorithm.clone();
    hand.params = r.params.clone();
    hand.claims = r.claims.clone();
    assert_eq!(r, hand);
    assert_eq!(
        r.claims,
        vec![
            Guarantee::KAnonymity { k: 2 },
            Guarantee::LocalLDiversity {
                k: 2,
                attribute: "Age".into(),
                l: 2
            },
            Guarantee::LocalLDiversity {
                k: 2,
                attribute: "Zip".into(),
                l: 2
            },
            Guarantee::LocalLDiversity {
                k: 2,
                attribute: "Disease".into(),
                l: 2
            },
        ]
    );
}

/// The Figure 2 table of the release above: sensitive cells replaced by
/// their bucket reference (numbered per attribute), written group by
/// group; each attribute's local buckets in a file of their own.
#[test]
fn the_published_table_is_figure_2() {
    let ds = lgb_patients();
    let r = lgb_mdp(&request(&ds, 2, 2), &Progress::new()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("patients.csv");
    let files = write_csv(&r, &ds, None, &out, &Inputs::new()).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![
            "patients.csv",
            "patients.Age.buckets.csv",
            "patients.Zip.buckets.csv",
            "patients.Disease.buckets.csv"
        ]
    );
    let table = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(
        table.lines().collect::<Vec<_>>(),
        vec![
            "Gender,Age,Zip,Disease,GID",
            "*,[16-24],[43302-43307],B1,1",
            "*,[16-24],[43302-43307],B4,1",
            "M,[29-35],43309,B2,2",
            "M,[29-35],43309,B3,2",
            "F,[24-31],B1,B1,3",
            "F,[24-31],B1,B4,3",
            "*,B1,[43302-43312],B2,4",
            "*,B1,[43302-43312],B3,4",
        ]
    );
    // The same rows through the renderer the TUI uses.
    let index = anonlab::release::BucketIndex::new(&r);
    let row = anonlab::release::published_row_indexed(&r, &ds, None, 2, 1, &index);
    assert_eq!(row, vec!["F", "[24-31]", "B1", "B4", "3"]);
    let plain = anonlab::release::published_row(&r, &ds, None, 2, 1, &r.bucket_of_row());
    assert_eq!(plain, row);
    let disease = std::fs::read_to_string(&files[3]).unwrap();
    assert_eq!(
        disease.lines().collect::<Vec<_>>(),
        vec![
            "BID,Disease,count",
            "B1,Dyspepsia,1",
            "B1,Flu,1",
            "B2,Bronchitis,1",
            "B2,Pneumonia,1",
            "B3,Dyspepsia,1",
            "B3,Flu,1",
            "B4,Gastritis,1",
            "B4,Pneumonia,1",
        ]
    );
    write_json(&r, &ds, &dir.path().join("patients.json"), &Inputs::new()).unwrap();
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("patients.json")).unwrap())
            .unwrap();
    assert_eq!(j["groups"][2]["cells"]["Zip"], "(local buckets)");
    assert_eq!(j["groups"][2]["cells"]["Age"], "[24-31]");
    assert_eq!(
        j["qi_partition"][1]["qi"],
        serde_json::json!(["Gender", "Age"])
    );
    assert_eq!(j["local_buckets"][0]["attribute"], "Age");
    assert_eq!(j["local_buckets"][0]["values"]["34"], 1);
    // The four tables, the JSON, and no temporary files.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 5);
}

#[test]
fn lgb_ncp_groups_each_subset_and_passes_the_verifier() {
    let ds = lgb_patients();
    for seed in 0..20 {
        let mut req = request(&ds, 2, 2);
        req.seed = seed;
        let r = lgb_ncp(&req, &Progress::new()).unwrap();
        assert_verified(&r, &ds);
        assert_eq!(r.params.seed, Some(seed));
        // S0 = {1001 (F, 16, 43302), 1004 (M, 24, 43307), 1005 (M, 29,
        // 43309), 1008 (M, 35, 43309)} has 2k rows. From any start the
        // farthest-row rounds end on the seeds 1001 and 1008 (pair NCP
        // 1 + 19/19 + 7/10 = 2.7, the largest). 1004 raises the penalty
        // |G| · NCP(G) by 2 · (1 + 8/19 + 5/10) joining 1001, by
        // 2 · (11/19 + 2/10) joining 1008; then 1005 by 3 · (11/19 + 2/10) −
        // 2 · (11/19 + 2/10) joining {1004, 1008} (inside its box) against
        // 2 · (1 + 13/19 + 7/10) joining 1001 (in the other order, likewise).
        // One row against three: Algorithm 4 keeps S0 whole. S1 and S2 have
        // 2 rows: whole.
        assert_eq!(r.group_sizes(), vec![4, 2, 2], "seed {seed}");
        // The buckets do not depend on the local generalization.
        let mdp = lgb_mdp(&req, &Progress::new()).unwrap();
        assert_eq!(r.local_buckets, mdp.local_buckets);
    }
}

#[test]
fn both_are_registered() {
    let ds = lgb_patients();
    for id in ["lgb-mdp", "lgb-ncp"] {
        let a = by_id(id).unwrap();
        assert!(a.needs().l && a.needs().semi_sensitive);
        let r = a.run(&request(&ds, 2, 2), &Progress::new()).unwrap();
        assert_eq!(r.algorithm, id);
        assert_verified(&r, &ds);
    }
}

/// A QI-partition subset smaller than k cannot form a local group: its
/// rows are suppressed, before bucketization. k = 3: S1 and S2 (two rows
/// each) go; S0's four rows are one group (no cut leaves 3 on each side).
/// Disease's published cells Bronchitis (4), Dyspepsia (7), Flu (0),
/// Pneumonia (3): the median Dyspepsia cuts {B, D} | {F, P}, both
/// 2-eligible; neither cuts again. Age and Zip have no published sensitive
/// cell: no buckets, and their claims hold vacuously.
#[test]
fn subsets_smaller_than_k_are_suppressed() {
    let ds = lgb_patients();
    let r = lgb_mdp(&request(&ds, 3, 2), &Progress::new()).unwrap();
    assert_verified(&r, &ds);
    assert_eq!(r.suppressed_rows, vec![1, 2, 5, 6]);
    assert_eq!(r.group_sizes(), vec![4]);
    assert_eq!(
        rows(&r.local_buckets_of(col(&ds, "Disease")).unwrap().buckets),
        vec![vec![4, 7], vec![0, 3]]
    );
    assert!(r.local_buckets_of(col(&ds, "Age")).is_none());
    let v = verify(&r, &ds);
    assert!(v
        .checks
        .iter()
        .any(|c| c.claim.contains("'Age'") && c.detail == "0 sensitive cells of 'Age'"));
}

/// Bad input: a semi-sensitive attribute without sensitive cells is a QI
/// attribute for every row (defined behaviour).
#[test]
fn no_sensitive_cells_make_a_plain_qi_attribute() {
    let ds = lgb_patients();
    let mut req = request(&ds, 2, 2);
    req.options.semi_sensitive[0].1.clear();
    let r = lgb_mdp(&req, &Progress::new()).unwrap();
    assert_verified(&r, &ds);
    assert!(r.local_buckets_of(col(&ds, "Age")).is_none());
    assert!(r
        .qi_partition
        .iter()
        .all(|p| p.qi.contains(&col(&ds, "Age"))));
}

/// Bad input: fewer than l distinct values among an attribute's sensitive
/// cells, or one value on more than 1/l of them, is refused by name.
#[test]
fn sensitive_cells_that_are_not_l_eligible_are_refused() {
    let ds = lgb_patients();
    let e = lgb_mdp(&request(&ds, 2, 3), &Progress::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the 2 sensitive cells of 'Age' hold 2 distinct values, fewer than l = 3"),
        "{e}"
    );
    // Only 1002 and 1004 hiding their age, both 24, and no zip hidden:
    // they form a QI subset of 2 rows and Age's sensitive cells are {24, 24}.
    let mut req = request(&ds, 2, 2);
    let age = col(&ds, "Age");
    req.options.semi_sensitive[0].1.clear();
    req.options.semi_sensitive[0].1.insert(1);
    req.options.semi_sensitive[0].1.insert(3);
    req.options.semi_sensitive[1].1.clear();
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(
        e.contains("the 2 sensitive cells of 'Age' hold 1 distinct values, fewer than l = 2"),
        "{e}"
    );
    assert_eq!(ds.col(age).display(ds.col(age).code(1)), "24");
    assert_eq!(ds.col(age).display(ds.col(age).code(3)), "24");
    // Disease with l = 3: Dyspepsia, Flu and Pneumonia are on 2 of 8 cells
    // each, fine; l = 5: 5 distinct values but 2 · 5 > 8.
    req = request(&ds, 2, 5);
    req.options.t_closeness = vec![(col(&ds, "Age"), 0.5), (col(&ds, "Zip"), 0.5)];
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(
        e.contains("'Disease' are not 5-eligible: 'Dyspepsia' is on 2 of its 8 sensitive cells"),
        "{e}"
    );
}

/// t-closeness per attribute, mixed with l-diversity; accepted on a
/// numeric attribute (ordered distance); refused on a QI attribute or
/// outside [0, 1].
#[test]
fn t_closeness_per_attribute() {
    let ds = lgb_patients();
    let mut req = request(&ds, 2, 2);
    req.options.t_closeness = vec![(col(&ds, "Age"), 0.2)];
    let r = lgb_mdp(&req, &Progress::new()).unwrap();
    assert_verified(&r, &ds);
    assert!(r.claims.contains(&Guarantee::LocalTCloseness {
        attribute: "Age".into(),
        t: 0.2
    }));
    // Age's two cells 22 and 34 as two buckets would each be at ordered
    // EMD ½ from {22, 34}; so one bucket.
    assert_eq!(
        rows(&r.local_buckets_of(col(&ds, "Age")).unwrap().buckets),
        vec![vec![2, 6]]
    );
    req.options.t_closeness = vec![(col(&ds, "Gender"), 0.2)];
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(
        e.contains("'Gender', which is neither semi-sensitive nor sensitive"),
        "{e}"
    );
    req.options.t_closeness = vec![(col(&ds, "Age"), 1.5)];
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(e.contains("outside [0, 1]"), "{e}");
}

#[test]
fn other_refusals_name_the_problem() {
    let ds = lgb_patients();
    let mut req = request(&ds, 2, 2);
    req.options.semi_sensitive[0].0 = col(&ds, "Gender");
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(
        e.contains("'Gender' is both a quasi-identifier and semi-sensitive"),
        "{e}"
    );
    let mut req = request(&ds, 2, 2);
    req.options.semi_sensitive[0].1 = FixedBitSet::with_capacity(3);
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(e.contains("given for 3 rows, the data have 8"), "{e}");
    let mut req = request(&ds, 2, 2);
    req.options.semi_sensitive.clear();
    req.sensitive.clear();
    let e = lgb_mdp(&req, &Progress::new()).unwrap_err().to_string();
    assert!(
        e.contains("needs a semi-sensitive or sensitive attribute"),
        "{e}"
    );
}
