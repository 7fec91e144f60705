//! The Release: what an algorithm would publish, described so that risk,
//! utility and the verifier can work on it without knowing which algorithm
//! made it (DESIGN.md, "One output shape for every algorithm").
//!
//! - **Equivalence groups** partition the published rows; each group has one
//!   generalized cell per quasi-identifier (an exact value, an interval, a
//!   set or hierarchy node, suppressed — or `Original`, each row's own value,
//!   which is how bucketization publishes QI values).
//! - **Buckets** are a second partition of the rows inside which sensitive
//!   values are detached from QI values (Anatomy, cross-bucket
//!   generalization). With no buckets, sensitive values stay on their rows.
//! - **Local buckets** do the same for the sensitive cells of one attribute
//!   only (LGB's per-attribute buckets).
//! - **QI partition** (LGB only, the LGB paper's Definitions 7–8): in a
//!   release with semi-sensitive attributes a row's QI attributes depend on
//!   which of its cells are sensitive. Semi-sensitive columns are listed
//!   among the quasi-identifiers *and* in `semi_sensitive`; each group
//!   belongs to one [`QiSubset`] naming the columns that carry QI values for
//!   all its rows. A group's cell on a column outside its subset's `qi` is
//!   `Suppressed` (no value is published there: to generic matching code it
//!   matches anything) and each of its rows' values on that column is in one
//!   of the column's local buckets, published only as a bucket reference.
//!   Fully sensitive columns (`sensitive`) have every published cell in a
//!   local bucket.
//! - **Assignment** (NG only, non-homogeneous generalization): every group
//!   is one published tuple (one row, its owner) whose cells were
//!   generalized over several records, and `assignment[g]` lists those
//!   records: the edges of the k-regular assignment graph between records
//!   and published tuples that NG's privacy rests on. It is the publisher's
//!   evidence for the verifier, not part of the published files (the
//!   attacker builds his own graph from the cells; see `algorithms::ng`).
//! - **Suppressed rows** are not published at all.
//! - **Claims** are the guarantees the algorithm says hold; the verifier in
//!   `privacy::verify` re-checks each by its definition.
//!
//! Codes index the source dataset's dictionaries, so a Release is only
//! meaningful together with the dataset it was made from.

pub mod csv_fields;
pub mod examples;
pub mod perturbation;
pub mod render;

use serde::{Deserialize, Serialize};

use crate::data::{Column, Dataset};

pub use perturbation::{
    AggregationName, Perturbation, PerturbationMethod, PerturbedColumn, PramMatrix, PublishedValues,
};

pub use render::{
    bucket_reference, buckets_path, csv_files, fingerprint, local_buckets_path, published_headers,
    published_row, published_row_indexed, short_fingerprint, stage_csv_fingerprinted, stage_json,
    write_csv, write_csv_fingerprinted, write_json, BucketIndex, ReleaseJson, StagedRelease,
};

/// One published quasi-identifier cell of an equivalence group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Cell {
    /// Each row publishes its own value (bucketization keeps QI values).
    Original,
    /// One exact value for the whole group.
    Value { code: u32 },
    /// A numeric range, as codes of the column's numerically sorted
    /// dictionary, both ends included.
    Interval { lo: u32, hi: u32 },
    /// A set of categorical codes, sorted; `label` names it when it is a
    /// hierarchy node.
    Set {
        codes: Vec<u32>,
        label: Option<String>,
    },
    /// Nothing published: matches any value.
    Suppressed,
}

impl Cell {
    /// Whether an attacker holding `code` would see this cell as matching.
    /// `own` is the published row's own code (used by `Original`).
    pub fn contains(&self, own: u32, code: u32) -> bool {
        match self {
            Cell::Original => own == code,
            Cell::Value { code: c } => *c == code,
            Cell::Interval { lo, hi } => (*lo..=*hi).contains(&code),
            Cell::Set { codes, .. } => codes.binary_search(&code).is_ok(),
            Cell::Suppressed => true,
        }
    }

    /// The smallest cell of its kind covering `codes` (a group's values):
    /// an interval for numeric columns, a set for categorical ones, the
    /// value itself when all agree.
    pub fn covering<I>(col: &Column, codes: I) -> Cell
    where
        I: IntoIterator<Item = u32>,
        I::IntoIter: Clone,
    {
        let codes = codes.into_iter();
        // One value, or a numeric range without missing cells: no list to
        // build (CBG and pk call this for every group of a few rows).
        let mut probe = codes.clone();
        let Some(first) = probe.next() else {
            return Cell::Suppressed;
        };
        let missing = col.missing_code();
        let (lo, hi, has_missing) = probe
            .fold((first, first, first == missing), |(lo, hi, m), c| {
                (lo.min(c), hi.max(c), m || c == missing)
            });
        if lo == hi {
            return Cell::Value { code: lo };
        }
        if col.is_numeric() && !has_missing {
            return Cell::Interval { lo, hi };
        }
        let mut v: Vec<u32> = codes.collect();
        v.sort_unstable();
        v.dedup();
        match v.as_slice() {
            [] => Cell::Suppressed,
            [c] => Cell::Value { code: *c },
            _ if col.is_numeric() && !v.contains(&col.missing_code()) => Cell::Interval {
                lo: v[0],
                hi: v[v.len() - 1],
            },
            // Every value present (and the missing code too, if the column
            // has missing cells): the cell says nothing, publish `*`. The
            // missing count scans the column, so it is asked only when the
            // present values already cover the dictionary.
            _ if covers_dictionary(col, &v) => Cell::Suppressed,
            _ => Cell::Set {
                codes: v,
                label: None,
            },
        }
    }

    /// How many codes the cell stands for (for NCP-style measures);
    /// `domain` is the number of codes of the column.
    pub fn width(&self, domain: usize) -> usize {
        match self {
            Cell::Original | Cell::Value { .. } => 1,
            Cell::Interval { lo, hi } => (hi - lo + 1) as usize,
            Cell::Set { codes, .. } => codes.len(),
            Cell::Suppressed => domain,
        }
    }

    /// The cell as published, e.g. `[16-24]`, `{Female,Male}`, `*`.
    pub fn render(&self, col: &Column, own: u32) -> String {
        match self {
            Cell::Original => col.display(own).to_string(),
            Cell::Value { code } => col.display(*code).to_string(),
            Cell::Interval { lo, hi } => format!("[{}-{}]", col.display(*lo), col.display(*hi)),
            Cell::Set { label: Some(l), .. } => l.clone(),
            Cell::Set { codes, .. } => {
                let names: Vec<&str> = codes.iter().map(|&c| col.display(c)).collect();
                format!("{{{}}}", names.join(","))
            }
            Cell::Suppressed => "*".to_string(),
        }
    }
}

fn covers_dictionary(col: &Column, sorted_codes: &[u32]) -> bool {
    let present = sorted_codes
        .iter()
        .filter(|&&c| c != col.missing_code())
        .count();
    present >= col.cardinality()
        && (sorted_codes.last() == Some(&col.missing_code()) || col.missing_count() == 0)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EquivalenceGroup {
    pub rows: Vec<u32>,
    /// One cell per quasi-identifier, parallel to `Release::quasi_identifiers`.
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub rows: Vec<u32>,
}

/// Buckets of the sensitive cells of one attribute (LGB). A row is in a
/// bucket of `column` exactly when its cell there is a sensitive value;
/// BIDs are numbered per attribute (bucket `b` is published as `B{b+1}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalBuckets {
    pub column: usize,
    pub buckets: Vec<Bucket>,
}

impl LocalBuckets {
    /// Local bucket index per source row (`None` where the row's cell is not
    /// a sensitive value of this column, or the row is out of range).
    pub fn bucket_of_row(&self, n_rows: usize) -> Vec<Option<u32>> {
        index_of_row(n_rows, self.buckets.iter().map(|b| &b.rows))
    }

    /// Sensitive cells bucketed.
    pub fn cells(&self) -> usize {
        self.buckets.iter().map(|b| b.rows.len()).sum()
    }
}

/// One subset of LGB's QI partition (Definition 7): groups whose rows all
/// carry QI values on the same columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QiSubset {
    /// Columns carrying QI values for the subset's rows, in the order of
    /// `Release::quasi_identifiers` (a sub-list of it).
    pub qi: Vec<usize>,
    /// Indices into `Release::groups` of its local equivalence groups.
    pub groups: Vec<u32>,
}

/// A guarantee an algorithm claims for its release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum Guarantee {
    /// Every equivalence group has at least k rows.
    KAnonymity { k: u32 },
    /// Non-homogeneous generalization's guarantee (Wong, Mamoulis and
    /// Cheung, SIGMOD 2010, as the refining-partition paper's NG baseline
    /// uses it with ℓ): every group is one published tuple, and the
    /// release's `assignment` is an l-regular bipartite graph between the
    /// published records and the tuples (each tuple assigned to l records,
    /// each record to l tuples, the tuple's own record among its l), every
    /// assigned record's QI values lie in the tuple's cells, and the l
    /// tuples assigned to a record carry l distinct values of the
    /// attribute. By König's theorem an l-regular bipartite graph is the
    /// union of l perfect matchings, so each of a record's l tuples is its
    /// own in some matching consistent with everything published: an
    /// attacker who knows every QI value cannot tell which, nor rule out
    /// any of l distinct sensitive values.
    RegularAssignment { attribute: String, l: u32 },
    /// Every equivalence group holds at least l distinct values of the
    /// attribute (Mondrian's l-diverse variant).
    GroupLDiversity { attribute: String, l: u32 },
    /// Every bucket holds at least l rows and no value of the attribute
    /// twice (Anatomy), so p(t, s) ≤ 1/l.
    BucketLDiversity { attribute: String, l: u32 },
    /// Corollary 2 of the cross-bucket paper: for every tuple, each
    /// sensitive value appears at most once among its matching buckets and
    /// p(t, MB)/|MB| ≤ 1/l for each matching bucket.
    CrossBucketLDiversity { attribute: String, l: u32 },
    /// Definition 10 of the cross-bucket paper: for every tuple t, the
    /// breach probability p(t, s) of its own sensitive value s, computed by
    /// an attacker who knows every tuple's QI values from the matching
    /// tuples and matching buckets (Section 4.1), is at most 1/l. This is
    /// what Corollary 2 is a sufficient condition for; it holds even where
    /// Corollary 2's first condition fails across batches because two rows
    /// share their QI values and their sensitive value.
    BreachProbability { attribute: String, l: u32 },
    /// Entropy l-diversity (Machanavajjhala et al., "ℓ-Diversity: Privacy
    /// Beyond k-Anonymity"): in every equivalence group, the entropy of the
    /// attribute's values, −Σ p(s) ln p(s) with natural log, is at least
    /// ln l. `l` may be fractional: any l ≥ 1 bounds the entropy.
    EntropyLDiversity { attribute: String, l: f64 },
    /// Recursive (c,l)-diversity (the same paper): in every equivalence
    /// group, with its value counts sorted descending r_1 ≥ r_2 ≥ … ≥ r_m,
    /// r_1 < c·(r_l + r_{l+1} + … + r_m).
    RecursiveCLDiversity { attribute: String, c: f64, l: u32 },
    /// Every group's distribution of the attribute is within EMD t of the
    /// table's.
    TCloseness { attribute: String, t: f64 },
    /// Corollary 3 of the LGB paper for one attribute with sensitive cells:
    /// (1) every local equivalence group has at least k rows, (2) each value
    /// appears at most once in each local bucket of the attribute, (3) each
    /// such local bucket holds at least l cells. Then identity disclosure is
    /// at most 1/k (Corollary 1) and p(t, s) ≤ 1/l for every sensitive cell
    /// of the attribute (Lemma 2, Corollary 2).
    LocalLDiversity { k: u32, attribute: String, l: u32 },
    /// t-closeness of one attribute's local buckets (LGB, Section 4's
    /// per-attribute principle): each local bucket's distribution of the
    /// attribute is within EMD t of the distribution of all the attribute's
    /// sensitive cells (the values the buckets partition; ordered distance
    /// for numeric columns, equal distance otherwise).
    LocalTCloseness { attribute: String, t: f64 },
    /// p-sensitive k-anonymity (the p-sensitive paper, Definition 3): every
    /// group has at least k rows and at least p distinct values of each
    /// listed sensitive attribute.
    PSensitiveKAnonymity {
        k: u32,
        p: u32,
        attributes: Vec<String>,
    },
    /// Extended p-sensitivity of one attribute (the p-sensitive paper,
    /// Definition 6, with k-anonymity claimed apart): the values of every
    /// group belong to at least p protected subtrees. `subtrees` lists the
    /// strong values with the values below them; a value in no listed
    /// subtree has no protected ancestor and is a subtree of its own.
    ExtendedPSensitivity {
        attribute: String,
        p: u32,
        subtrees: Vec<ProtectedSubtree>,
    },
    /// (α,k)-anonymity of one attribute (Wong et al., KDD 2006, for every
    /// value): in every group no value of the attribute holds more than a
    /// share α of the group's records (k is claimed apart).
    AlphaK { attribute: String, alpha: f64 },
    /// δ-disclosure privacy (Brickell & Shmatikov, KDD 2008): in every
    /// group, |ln(q(s)/p(s))| ≤ δ for every value s of the published table,
    /// q the group's distribution and p the published table's (a group
    /// lacking a value of the table fails).
    DeltaDisclosure { attribute: String, delta: f64 },
    /// Basic β-likeness (Cao & Karras, PVLDB 2012): in every group,
    /// (q(s) − p(s))/p(s) ≤ β for every value with q(s) > p(s), against
    /// the published table.
    BetaLikeness { attribute: String, beta: f64 },
    /// k-anonymity of a local suppression (sdcMicro's `localSuppression`,
    /// Templ 2017): every published record is matched by at least k
    /// published records (itself included) on the quasi-identifiers,
    /// where under [`Convention::AnyValue`] two records match when on
    /// every attribute their cells are equal or either is suppressed
    /// (`*`, sdcMicro's freqCalc with alpha = 1), and under
    /// [`Convention::OwnValue`] when their cells are equal, `*` being one
    /// more value (alpha = 0). With `strata`, records match only within
    /// their stratum (the column's value); `combinations` lists sizes m for
    /// which the same holds on every subset of m quasi-identifiers.
    ///
    /// This is a property of the published key tuples: under `AnyValue` an
    /// attacker who knows a target's true values rules out the records
    /// showing another value where the target's cell is `*`, so it does
    /// not bound that attacker's Pr(re-id) by 1/k (the linkage figure
    /// measures that attacker); under `OwnValue` every group of identical
    /// published tuples has k records, which does.
    SuppressionKAnonymity {
        k: u32,
        convention: Convention,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        combinations: Vec<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<String>,
    },
    /// A local suppression to a risk target (`local_suppression::
    /// risk_target`): every published record's individual risk —
    /// sdcMicro's approximation with f the published records compatible
    /// with it (a `*` matches any value) and F̂ the sum of their sampling
    /// weights, or 1/f without weights — is at most `threshold`; with a
    /// household column, every household's 1 − ∏(1 − rᵢ) over its members
    /// is.
    SuppressionRiskThreshold {
        threshold: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weights: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        household: Option<String>,
    },
    /// Microaggregation (`algorithms::microaggregation`, the release's
    /// `perturbation`): on the aggregated attributes together, every
    /// published tuple of values is shared by at least k published records
    /// of its stratum (the column's value), and each published value is its
    /// group's mean (or median) of the original values. The attributes are
    /// numerical key variables, not quasi-identifiers: the claim bounds an
    /// attacker who matches published values exactly, not one who matches
    /// the nearest (the interval and linkage measures measure that one).
    MicroaggregationK {
        k: u32,
        attributes: Vec<String>,
        aggregation: AggregationName,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<String>,
        /// The sampling weights each group's mean or median is weighted by.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weights: Option<String>,
    },
    /// PRAM (`algorithms::pram`, the release's `perturbation`): the
    /// published categories of the attributes are codes of their
    /// dictionaries drawn by the recorded transition matrices — each a
    /// matrix of probabilities (rows summing to 1), invariant for its
    /// stratum's frequencies where `invariant` says so, giving no
    /// probability to a category its stratum lacks — and no published
    /// value leaves its stratum. It bounds no re-identification: it is
    /// the statement a PRAM release can be checked against.
    Pram {
        attributes: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<String>,
    },
    /// Rank swapping (`algorithms::swapping`): each attribute's published
    /// values are its original values permuted within each stratum, and
    /// every record's published value is the original of a record fewer
    /// than p·N/100 ranks away (N the stratum's records).
    RankSwap {
        attributes: Vec<String>,
        p: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<String>,
    },
}

/// How a suppressed (or missing) key cell matches other cells when
/// records are counted (sdcMicro's `alpha` of freqCalc at its two ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Convention {
    /// A suppressed cell matches any value, on either side (alpha = 1,
    /// sdcMicro's default).
    #[default]
    AnyValue,
    /// A suppressed cell is one more value, `*`, equal only to `*` (alpha
    /// = 0): stricter.
    OwnValue,
}

impl Convention {
    /// How the CLI and the JSON name it: `any` / `own`.
    pub fn short(self) -> &'static str {
        match self {
            Convention::AnyValue => "any",
            Convention::OwnValue => "own",
        }
    }

    /// The convention [`short`](Self::short) names.
    pub fn from_short(name: &str) -> Option<Convention> {
        match name {
            "any" => Some(Convention::AnyValue),
            "own" => Some(Convention::OwnValue),
            _ => None,
        }
    }

    /// In words, for claims and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Convention::AnyValue => "* matches any value (sdcMicro alpha = 1)",
            Convention::OwnValue => "* is a value of its own (sdcMicro alpha = 0)",
        }
    }
}

/// What a local suppression suppressed: cells per quasi-identifier, made
/// by the algorithm (cells missing in the input are published as `*` too
/// but counted apart, in `missing_before`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellSuppression {
    pub convention: Convention,
    /// Cells suppressed per quasi-identifier, by name, in the release's
    /// quasi-identifier order.
    pub suppressed_cells: Vec<AttributeCells>,
    /// Σ of `suppressed_cells`.
    pub total: u64,
    /// Cells missing in the input, per quasi-identifier (published as `*`).
    pub missing_before: Vec<AttributeCells>,
    /// Which search gave the release (`search` or `sdcmicro-greedy`, the
    /// baseline it is never worse than), and the baseline's cells on the
    /// same input (alpha = 1 only).
    pub method: String,
    pub greedy_total: Option<u64>,
    /// The greedy was stopped once its cells exceeded the search's (in
    /// some pass): `greedy_total` is then a lower bound, above `total`.
    #[serde(default)]
    pub greedy_stopped: bool,
    /// Under a risk target instead of k: the risks before and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskFigures>,
    /// With a household column: the suppressions by household size (the
    /// Handbook on SDC's report for hierarchical files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub households: Option<HouseholdCells>,
}

/// A local suppression's risk target and the risks it left: of records
/// (individual risk) or, with a household column, of households
/// (1 − ∏(1 − rᵢ) over their members).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskFigures {
    pub threshold: f64,
    /// What a risk is: "individual risk with sampling weights 'w' (approx)"
    /// or "1/f", and per record or per household.
    pub basis: String,
    /// `records` or `households`.
    pub unit: String,
    pub max_before: f64,
    pub max_after: f64,
    /// Units above the threshold before and after (after is 0).
    pub above_before: u64,
    pub above_after: u64,
}

/// Suppressions by household size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseholdCells {
    /// The household identifier column.
    pub column: String,
    /// One row per size (members in the file), smallest first.
    pub by_size: Vec<HouseholdSizeCells>,
}

/// The suppressions in the households of one size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseholdSizeCells {
    pub size: u32,
    pub households: u64,
    /// Households with at least one cell suppressed.
    pub households_touched: u64,
    pub records: u64,
    /// Records with at least one cell suppressed.
    pub records_touched: u64,
    /// Cells suppressed per quasi-identifier, in the release's order.
    pub cells: Vec<AttributeCells>,
    pub total: u64,
}

/// A count of cells of one attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributeCells {
    pub attribute: String,
    pub cells: u64,
}

/// A protected subtree of a sensitive attribute's hierarchy (the
/// p-sensitive paper, Definitions 4–5): its strong value and the attribute's
/// values below it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedSubtree {
    pub root: String,
    pub values: Vec<String>,
}

/// Parameters the release was made with, shown next to its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ReleaseParams {
    pub k: Option<u32>,
    pub l: Option<u32>,
    pub t: Option<f64>,
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Release {
    pub algorithm: String,
    pub params: ReleaseParams,
    /// Column indices of the quasi-identifiers, in published order.
    pub quasi_identifiers: Vec<usize>,
    /// Column indices of the sensitive attributes.
    pub sensitive: Vec<usize>,
    /// Identifier columns: never published.
    pub identifiers: Vec<usize>,
    /// Identifier columns of the file that are not in the dataset (the
    /// query engine's table leaves them out; its publishing pass drops
    /// them): never published either.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identifiers_outside: Vec<String>,
    pub groups: Vec<EquivalenceGroup>,
    /// Empty when sensitive values stay on their rows.
    pub buckets: Vec<Bucket>,
    pub local_buckets: Vec<LocalBuckets>,
    /// Semi-sensitive columns (LGB), each also among `quasi_identifiers`.
    #[serde(default)]
    pub semi_sensitive: Vec<usize>,
    /// LGB's QI partition; empty for releases of other algorithms (all
    /// their rows carry QI values on every quasi-identifier).
    #[serde(default)]
    pub qi_partition: Vec<QiSubset>,
    /// NG's assignment, parallel to `groups`: the records each published
    /// tuple is assigned to (its own row among them). Empty for releases
    /// of other algorithms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignment: Vec<Vec<u32>>,
    pub suppressed_rows: Vec<u32>,
    pub claims: Vec<Guarantee>,
    /// Rows of the source dataset.
    pub source_rows: usize,
    /// The cells a local suppression suppressed (`None` for the other
    /// algorithms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppression: Option<CellSuppression>,
    /// Values published in place of the originals (microaggregation;
    /// `perturbation`'s header says why they are not cells).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<Perturbation>,
}

const NONE: u32 = u32::MAX;

impl Release {
    /// An empty release over a dataset, to be filled by an algorithm.
    pub fn new(algorithm: &str, ds: &Dataset, qi: Vec<usize>, sensitive: Vec<usize>) -> Self {
        Release {
            algorithm: algorithm.to_string(),
            params: ReleaseParams::default(),
            quasi_identifiers: qi,
            sensitive,
            identifiers: Vec::new(),
            identifiers_outside: Vec::new(),
            groups: Vec::new(),
            buckets: Vec::new(),
            local_buckets: Vec::new(),
            semi_sensitive: Vec::new(),
            qi_partition: Vec::new(),
            assignment: Vec::new(),
            suppressed_rows: Vec::new(),
            claims: Vec::new(),
            source_rows: ds.n_rows(),
            suppression: None,
            perturbation: None,
        }
    }

    /// Add a group whose cells are the smallest covering its rows' values.
    pub fn push_covering_group(&mut self, ds: &Dataset, rows: Vec<u32>) {
        let cells = self
            .quasi_identifiers
            .iter()
            .map(|&c| {
                let col = ds.col(c);
                Cell::covering(col, rows.iter().map(|&r| col.code(r as usize)))
            })
            .collect();
        self.groups.push(EquivalenceGroup { rows, cells });
    }

    pub fn published_rows(&self) -> usize {
        self.groups.iter().map(|g| g.rows.len()).sum()
    }

    /// Group index per source row (`None` for suppressed rows).
    pub fn group_of_row(&self) -> Vec<Option<u32>> {
        index_of_row(self.source_rows, self.groups.iter().map(|g| &g.rows))
    }

    /// Bucket index per source row (`None` when not in a bucket).
    pub fn bucket_of_row(&self) -> Vec<Option<u32>> {
        index_of_row(self.source_rows, self.buckets.iter().map(|b| &b.rows))
    }

    /// Whether the release carries NG's assignment graph.
    pub fn has_assignment(&self) -> bool {
        !self.assignment.is_empty()
    }

    pub fn is_bucketized(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// The published values of `column` when a perturbation replaced its
    /// originals.
    pub fn perturbed(&self, column: usize) -> Option<&PublishedValues> {
        self.perturbation.as_ref()?.values_of(column)
    }

    /// Sizes of the equivalence groups.
    pub fn group_sizes(&self) -> Vec<u32> {
        self.groups.iter().map(|g| g.rows.len() as u32).collect()
    }

    /// Whether this is an LGB release (local equivalence groups in a QI
    /// partition).
    pub fn is_local(&self) -> bool {
        !self.qi_partition.is_empty()
    }

    /// The local buckets of `column`, if it has any.
    pub fn local_buckets_of(&self, column: usize) -> Option<&LocalBuckets> {
        self.local_buckets.iter().find(|l| l.column == column)
    }

    /// QI-partition subset per group (`None` for a group outside every
    /// subset, which the verifier rejects, and for non-LGB releases).
    pub fn subset_of_group(&self) -> Vec<Option<u32>> {
        index_of_row(
            self.groups.len(),
            self.qi_partition.iter().map(|s| &s.groups),
        )
    }

    /// Per group and quasi-identifier position, whether the group's rows
    /// carry QI values there (`false`: their cells are sensitive values,
    /// published through the column's local buckets). All `true` outside
    /// LGB.
    pub fn carries_qi(&self) -> Vec<Vec<bool>> {
        let subset = self.subset_of_group();
        subset
            .iter()
            .map(|s| match s {
                Some(s) => {
                    let qi = &self.qi_partition[*s as usize].qi;
                    self.quasi_identifiers
                        .iter()
                        .map(|c| qi.contains(c))
                        .collect()
                }
                None => vec![!self.is_local(); self.quasi_identifiers.len()],
            })
            .collect()
    }
}

fn index_of_row<'a>(n: usize, sets: impl Iterator<Item = &'a Vec<u32>>) -> Vec<Option<u32>> {
    let mut out = vec![NONE; n];
    for (i, rows) in sets.enumerate() {
        for &r in rows {
            if let Some(slot) = out.get_mut(r as usize) {
                *slot = i as u32;
            }
        }
    }
    out.into_iter().map(|v| (v != NONE).then_some(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds() -> Dataset {
        Dataset::from_rows(
            &["age", "sex"],
            &[
                vec!["16", "F"],
                vec!["24", "M"],
                vec!["20", "F"],
                vec!["31", "M"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn covering_cells() {
        let d = ds();
        let age = d.col(0);
        let c = Cell::covering(age, [age.code(0), age.code(1), age.code(2)]);
        assert_eq!(c.render(age, 0), "[16-24]");
        assert!(c.contains(0, age.code_of("20").unwrap()));
        assert!(!c.contains(0, age.code_of("31").unwrap()));
        let sex = d.col(1);
        // Both sexes: the whole domain is `*`.
        assert_eq!(Cell::covering(sex, [0, 1]), Cell::Suppressed);
        assert_eq!(Cell::covering(sex, [1, 1]).render(sex, 0), "M");
        assert_eq!(Cell::Original.render(sex, 0), "F");
    }

    #[test]
    fn group_index() {
        let d = ds();
        let mut r = Release::new("test", &d, vec![0, 1], vec![]);
        r.push_covering_group(&d, vec![0, 2]);
        r.push_covering_group(&d, vec![1]);
        r.suppressed_rows.push(3);
        assert_eq!(r.group_of_row(), vec![Some(0), Some(1), Some(0), None]);
        assert_eq!(r.groups[0].cells[1].render(d.col(1), 0), "F");
        assert_eq!(r.published_rows(), 3);
    }
}
