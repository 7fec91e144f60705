//! The **after** of a release: the three attacks of the baseline run on
//! what a release publishes, for one stated attacker. Every surface that
//! shows an after figure — the TUI's Risk, Anonymize and Compare screens,
//! `anonlab anonymize --json` and `compare --json`, the exported charts and
//! the report — reads it from [`After::measure`], and names the attacker
//! with [`AfterAttacker`] (issue 32: three surfaces used to show three
//! different "after" figures for one release, each for an attacker of its
//! own).
//!
//! The attacker is explicit ([`Attacker`]): by default the session's
//! ([`Session::attacker`](crate::session::Session::attacker): the project's
//! `attacker.known`, hidden cells as the session has them). A surface that
//! shows another one — the attacker of the release, who knows every
//! quasi-identifier it publishes ([`Attacker::of_release`]) — measures it
//! here too and says so in the same words.
//!
//! - **Key count** (the risk-assessment paper's attack simulator,
//!   `risk::simulate`): Pr(re-id) = 1 / records sharing the target's
//!   known values, run on the *published* table: a record's key is what
//!   the release prints in the known columns — its group's generalized
//!   cells (`[30-39]`, `{Female,Male}`, `*`), or its own value where the
//!   release keeps it (`Cell::Original`, bucketization: Anatomy and CBG
//!   keep the QI values, so their key count is the original's). A cell an
//!   LGB release publishes as a bucket reference is hidden, like a
//!   sensitive cell before (the session's hidden cells are either such
//!   references, for LGB, or not published at all: the other algorithms
//!   leave semi-sensitive attributes out, `Session::request`). Known
//!   attributes the release does not publish tell the attacker nothing and
//!   are left out (and named). Suppressed rows are not published: Pr 0.
//!   A local suppression's `*` under its `AnyValue` convention is read
//!   as the release states it: a wildcard matching any value on either
//!   side (sdcMicro's freqCalc, alpha = 1), so the key count is the
//!   frequency its k-anonymity is claimed on; the label says so. Under
//!   `OwnValue`, and for every other algorithm, `*` is a printed value.
//!   The linkage attacker, who holds the target's true values, sees a `*`
//!   as containing them, and rules out the records showing another value
//!   where the target's cell is `*`: under alpha = 1 that figure can be
//!   above 1/k, and it is shown as measured.
//! - **Linkage** (`anonymize::measure_risk`, the code behind the
//!   Evaluation): the attacker holds the target's values and counts the
//!   published tuples whose cells contain them, on the release projected
//!   on the known quasi-identifiers — with every QI known this is the
//!   release itself, so the figures are the Evaluation's.
//! - **Breach** of the first sensitive attribute: p(t, s) from matching
//!   groups and buckets, by the same two functions.

use fixedbitset::FixedBitSet;
use serde::{Deserialize, Serialize};

use crate::anonymize::{self, AttributeBreach, Distribution, Evaluation};
use crate::data::{ColumnBuilder, ColumnKind, Dataset};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::release::{Cell, Release};
use crate::risk::risky_cells::RiskyCellsReport;
use crate::risk::{self, Knowledge, ProbabilityRuns};
use crate::session::{Attacker, AttackerSummary};

/// What a hidden cell (a bucket reference) is published as in the table
/// the after-simulator reads; the simulator treats it as a wildcard anyway.
const HIDDEN_LABEL: &str = "*";

/// Who an after figure is for, in names: the attacker (the words of
/// [`AttackerSummary`], as "before" says them) and which of the attributes
/// they know the release leaves out. Serialized beside every after figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AfterAttacker {
    #[serde(flatten)]
    pub summary: AttackerSummary,
    /// Known attributes the release does not publish: they tell the
    /// attacker nothing about it.
    pub not_published: Vec<String>,
    /// The whole description as every surface prints it: `attacker knows
    /// 6 of 7 QIs; 2,082 cells hidden; not published: workclass`.
    pub label: String,
}

impl AfterAttacker {
    /// `attacker` facing `release`, in names.
    pub fn of(ds: &Dataset, release: &Release, attacker: &Attacker) -> Self {
        let not_published = attacker
            .known
            .iter()
            .filter(|c| !release.quasi_identifiers.contains(c))
            .map(|&c| ds.col(c).name().to_string())
            .collect();
        Self::with_stars(
            attacker.summary(ds),
            not_published,
            stars_match_any(release),
        )
    }

    fn with_stars(summary: AttackerSummary, not_published: Vec<String>, stars: bool) -> Self {
        let mut label = summary.to_string();
        if !not_published.is_empty() {
            label.push_str(&format!("; not published: {}", not_published.join(", ")));
        }
        if stars {
            label.push_str("; key count: * matches any value");
        }
        AfterAttacker {
            summary,
            not_published,
            label,
        }
    }
}

impl std::fmt::Display for AfterAttacker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

/// The three attacks on one release for one attacker: the shape of the
/// baseline (`assess::Baseline`), after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct After {
    /// Whose figures these are.
    pub attacker: AfterAttacker,
    /// The key-count simulator on the published table.
    pub key_count: Distribution,
    /// The linkage attack on the release projected on the known QIs.
    pub linkage: Distribution,
    /// Breach probability of the first sensitive attribute.
    pub breach: Option<AttributeBreach>,
    /// μ-ARGUS's threshold rule on the published table, when the
    /// attacker's settings ask for it (`risk::risky_cells`): the same
    /// combinations of the known attributes the release publishes, a cell
    /// being what it prints (`[30-39]`, `*`), suppressed rows left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risky_cells: Option<RiskyCellsReport>,
    /// The attacker's known columns (attacker order).
    #[serde(skip)]
    pub known: Vec<usize>,
    /// Known columns the release publishes: those the attacks use.
    #[serde(skip)]
    pub columns: Vec<usize>,
    /// Per source row: records it cannot be told from in the published
    /// table by the key count (0: suppressed, not published).
    #[serde(skip)]
    pub matches: Vec<u32>,
}

impl Attacker {
    /// The attacker of a release: knows every quasi-identifier it
    /// publishes, nothing hidden beyond what it hides itself. `visible` is
    /// how many attributes an attacker could know (the "of" of the label).
    pub fn of_release(release: &Release, visible: usize, threshold: f64) -> Attacker {
        Attacker::knowing(release.quasi_identifiers.clone(), visible, threshold)
    }

    /// An attacker knowing `known`, no cell hidden, and no population
    /// model (the after figures read none).
    pub fn knowing(known: Vec<usize>, visible: usize, threshold: f64) -> Attacker {
        Attacker {
            hidden: vec![None; known.len()],
            known,
            visible,
            threshold,
            population: Default::default(),
            population_csv: Default::default(),
        }
    }
}

impl After {
    /// The three attacks on `release` for `attacker` (see the module doc);
    /// a record is above `threshold` when its chance is strictly greater.
    pub fn measure(
        ds: &Dataset,
        release: &Release,
        attacker: &Attacker,
        threshold: f64,
        progress: &Progress,
    ) -> Result<After> {
        Self::measure_with(ds, release, attacker, threshold, None, progress)
    }

    /// [`After::measure`], reusing `evaluation`'s linkage and breach (made
    /// by `anonymize::measure_risk`'s code on the release itself) when the
    /// attacker knows every quasi-identifier the release publishes: the
    /// same figures without measuring twice.
    pub fn measure_with(
        ds: &Dataset,
        release: &Release,
        attacker: &Attacker,
        threshold: f64,
        evaluation: Option<&Evaluation>,
        progress: &Progress,
    ) -> Result<After> {
        let known = attacker.known.clone();
        let columns: Vec<usize> = known
            .iter()
            .copied()
            .filter(|c| release.quasi_identifiers.contains(c))
            .collect();
        let mut named = AfterAttacker::of(ds, release, attacker);
        named.summary.threshold = threshold;
        let projected = project(release, &columns);
        // The simulator on the published table and the linkage attack on
        // the projected release read the release and not each other.
        let (key_count, risk) = rayon::join(
            || key_count(ds, release, &columns, threshold, progress),
            || match (&projected, evaluation) {
                (None, Some(e)) => Ok((e.reidentification.clone(), e.breach.clone())),
                _ => anonymize::measure_risk(projected.as_ref().unwrap_or(release), ds, progress)
                    .map(|(reid, breach, _)| (reid, breach)),
            },
        );
        let (matches, key_count) = key_count?;
        let (linkage, breach) = risk?;
        // The evaluation's figures carry its own threshold: counts above
        // ours are read off their CDF, the summary states ours.
        let at = |mut d: Distribution| {
            d.set_threshold(threshold);
            d
        };
        let records = ds.records() as usize;
        let breach = breach
            .zip(release.sensitive.first())
            .map(|(d, &s)| AttributeBreach {
                attribute: ds.col(s).name().to_string(),
                cells: records,
                distribution: at(d),
            });
        let risky_cells = match attacker.population.risky_cells {
            Some(rule) if !columns.is_empty() => {
                let table = published_table(release, ds, &columns)?;
                let all: Vec<usize> = (0..columns.len()).collect();
                // At most as many attributes as the release publishes of
                // those the rule was asked for.
                let m = rule.max_size.min(columns.len());
                // A published row stands for its source row's records.
                let records = |r: usize| u64::from(ds.multiplicity(table.source[r] as usize));
                Some(risk::risky_cells::risky_cells_of(
                    &table.dataset,
                    &all,
                    m,
                    rule.threshold,
                    &records,
                )?)
            }
            _ => None,
        };
        Ok(After {
            attacker: named,
            key_count,
            linkage: at(linkage),
            breach,
            risky_cells,
            known,
            columns,
            matches,
        })
    }
}

impl After {
    /// The figures alone, without the per-record parts (`known`,
    /// `columns`, `matches`): what the JSON carries, so a report read back
    /// equals the one written.
    pub fn figures(&self) -> After {
        After {
            attacker: self.attacker.clone(),
            key_count: self.key_count.clone(),
            linkage: self.linkage.clone(),
            breach: self.breach.clone(),
            risky_cells: self.risky_cells.clone(),
            known: Vec::new(),
            columns: Vec::new(),
            matches: Vec::new(),
        }
    }
}

/// The key count on the published table: per source row its matches, and
/// their distribution.
fn key_count(
    ds: &Dataset,
    release: &Release,
    columns: &[usize],
    threshold: f64,
    progress: &Progress,
) -> Result<(Vec<u32>, Distribution)> {
    let table = published_table(release, ds, columns)?;
    // Records, not rows: a grouped table's row stands for several.
    let published = ds.records_of(&table.source);
    // A table of no columns has no rows to simulate on: knowing nothing,
    // every published record hides among all of them.
    let published_matches = if columns.is_empty() {
        vec![published as u32; table.source.len()]
    } else {
        let hidden: Vec<Option<&FixedBitSet>> = table.hidden.iter().map(Some).collect();
        let positions: Vec<usize> = (0..columns.len()).collect();
        let knowledge = Knowledge {
            columns: &positions,
            hidden: &hidden,
        };
        if stars_match_any(release) {
            // The same relation as the simulator's (`risk::original`: the
            // two agree record by record), counted per pair of `*`
            // patterns: a local suppression has hundreds of them, which
            // the simulator's wildcard search pays for per record.
            risk::original_matches(&table.dataset, knowledge, None, progress)?.matches
        } else {
            risk::simulate(&table.dataset, knowledge, threshold, progress)?.matches
        }
    };
    let mut matches = vec![0u32; ds.n_rows()];
    for (&r, &m) in table.source.iter().zip(&published_matches) {
        matches[r as usize] = m;
    }
    let probabilities: Vec<f64> = matches
        .iter()
        .map(|&m| if m == 0 { 0.0 } else { 1.0 / f64::from(m) })
        .collect();
    let dist = Distribution::from_runs(
        &ProbabilityRuns::of_probabilities(&probabilities, ds.multiplicities()),
        published,
        threshold,
    );
    Ok((matches, dist))
}

/// The release restricted to the quasi-identifiers in `columns`: each
/// group's cells on those only, and LGB's QI partition likewise (the
/// attacker still tells the partition's subsets apart, as `risk::local_risk`
/// assumes). `None` when every quasi-identifier is known: the release
/// itself.
fn project(release: &Release, columns: &[usize]) -> Option<Release> {
    let keep: Vec<usize> = (0..release.quasi_identifiers.len())
        .filter(|&a| columns.contains(&release.quasi_identifiers[a]))
        .collect();
    if keep.len() == release.quasi_identifiers.len() {
        return None;
    }
    let mut p = release.clone();
    p.quasi_identifiers = keep.iter().map(|&a| release.quasi_identifiers[a]).collect();
    for g in &mut p.groups {
        g.cells = keep
            .iter()
            .filter_map(|&a| g.cells.get(a).cloned())
            .collect();
    }
    let qi = p.quasi_identifiers.clone();
    for s in &mut p.qi_partition {
        s.qi.retain(|c| qi.contains(c));
    }
    p.semi_sensitive.retain(|c| qi.contains(c));
    Some(p)
}

/// Whether the release's `*`s match any value (a local suppression under
/// its `AnyValue` convention): the key count then reads them as hidden.
fn stars_match_any(release: &Release) -> bool {
    release
        .suppression
        .as_ref()
        .is_some_and(|s| s.convention == crate::release::Convention::AnyValue)
}

/// The published table on some known columns, as a dataset the simulator
/// reads: one row per published row, group by group.
struct PublishedTable {
    dataset: Dataset,
    /// Source row of each published row.
    source: Vec<u32>,
    /// Per column: published rows whose cell is a bucket reference.
    hidden: Vec<FixedBitSet>,
}

fn published_table(release: &Release, ds: &Dataset, columns: &[usize]) -> Result<PublishedTable> {
    let positions: Vec<usize> = columns
        .iter()
        .filter_map(|c| release.quasi_identifiers.iter().position(|q| q == c))
        .collect();
    let rows = release.published_rows();
    let carries = release.carries_qi();
    let mut builders: Vec<ColumnBuilder> = columns
        .iter()
        .map(|&c| ColumnBuilder::with_capacity(ds.col(c).name().to_string(), rows))
        .collect();
    let mut hidden = vec![FixedBitSet::with_capacity(rows); columns.len()];
    let mut source = Vec::with_capacity(rows);
    let stars = stars_match_any(release);
    for (g, group) in release.groups.iter().enumerate() {
        // A group's generalized cell is the same on every row: render once.
        let labels: Vec<Option<String>> = positions
            .iter()
            .map(|&a| match group.cells.get(a) {
                Some(Cell::Original) | None => None,
                Some(cell) => Some(cell.render(ds.col(release.quasi_identifiers[a]), 0)),
            })
            .collect();
        for &r in &group.rows {
            let i = source.len();
            source.push(r);
            for (j, &a) in positions.iter().enumerate() {
                let b = &mut builders[j];
                let star = stars && matches!(group.cells.get(a), Some(Cell::Suppressed));
                if star || !carries[g].get(a).copied().unwrap_or(true) {
                    hidden[j].insert(i);
                    b.push(HIDDEN_LABEL);
                } else if let Some(label) = &labels[j] {
                    b.push(label);
                } else {
                    let col = ds.col(columns[j]);
                    b.push(col.display(col.code(r as usize)));
                }
            }
        }
    }
    let cols = builders
        .into_iter()
        .map(|b| {
            b.finish(Some(ColumnKind::Categorical))
                .map_err(|e| Error::Internal(format!("published table: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut dataset = Dataset::new("published", cols)?;
    if ds.is_grouped() {
        // Each published row stands for its source row's records, so the
        // simulator counts records sharing a key, as on the baseline.
        dataset = dataset.grouped(
            source
                .iter()
                .map(|&r| ds.multiplicity(r as usize))
                .collect(),
        )?;
    }
    Ok(PublishedTable {
        dataset,
        source,
        hidden,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::EquivalenceGroup;

    fn table() -> Dataset {
        Dataset::from_rows(
            &["age", "zip", "disease"],
            &[
                vec!["30", "1", "flu"],
                vec!["31", "1", "flu"],
                vec!["32", "2", "hiv"],
                vec!["40", "2", "flu"],
                vec!["41", "3", "cold"],
                vec!["42", "3", "hiv"],
            ],
        )
        .unwrap()
    }

    /// Two groups on age ([30-32], [40-42]), zip kept per row.
    fn release(ds: &Dataset) -> Release {
        let code = |v: &str| ds.col(0).code_of(v).unwrap();
        let mut r = Release::new("test", ds, vec![0, 1], vec![2]);
        r.groups = vec![
            EquivalenceGroup {
                rows: vec![0, 1, 2],
                cells: vec![
                    Cell::Interval {
                        lo: code("30"),
                        hi: code("32"),
                    },
                    Cell::Original,
                ],
            },
            EquivalenceGroup {
                rows: vec![3, 4, 5],
                cells: vec![
                    Cell::Interval {
                        lo: code("40"),
                        hi: code("42"),
                    },
                    Cell::Suppressed,
                ],
            },
        ];
        r
    }

    fn knowing(known: Vec<usize>) -> Attacker {
        Attacker::knowing(known, 2, 0.4)
    }

    #[test]
    fn key_count_after_reads_the_published_cells() {
        let ds = table();
        let r = release(&ds);
        let p = Progress::new();
        let a = After::measure(&ds, &r, &knowing(vec![0, 1]), 0.4, &p).unwrap();
        // Group 0 publishes ([30-32], own zip): zips 1,1,2 → 2,2,1 records
        // share the key; group 1 publishes ([40-42], *): 3 each.
        assert_eq!(a.matches, vec![2, 2, 1, 3, 3, 3]);
        assert_eq!(a.key_count.certain(), 1);
        // 1 and ½ twice are above 0.4.
        assert_eq!(a.key_count.above(0.4), 3);
        assert_eq!(a.attacker.label, "attacker knows 2 of 2 QIs");
        // Knowing age only: the two groups, three records each.
        let a = After::measure(&ds, &r, &knowing(vec![0]), 0.4, &p).unwrap();
        assert_eq!(a.matches, vec![3; 6]);
        assert_eq!(a.key_count.above(0.4), 0);
    }

    #[test]
    fn linkage_after_is_the_evaluation_when_every_qi_is_known() {
        let ds = table();
        let r = release(&ds);
        let p = Progress::new();
        let (reid, breach, _) = anonymize::measure_risk(&r, &ds, &p).unwrap();
        let a = After::measure(&ds, &r, &knowing(vec![1, 0]), 0.2, &p).unwrap();
        assert_eq!(a.linkage.cdf, reid.cdf);
        assert_eq!(a.linkage.summary.mean, reid.summary.mean);
        let b = breach.unwrap();
        assert_eq!(a.breach.as_ref().unwrap().distribution.cdf, b.cdf);
        // Forgetting zip projects it away: every record matches its group.
        let a = After::measure(&ds, &r, &knowing(vec![0]), 0.2, &p).unwrap();
        assert!((a.linkage.summary.mean - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.linkage.certain(), 0);
    }

    #[test]
    fn unpublished_known_columns_are_named_and_ignored() {
        let ds = table();
        let mut r = release(&ds);
        r.quasi_identifiers = vec![0];
        for g in &mut r.groups {
            g.cells.truncate(1);
        }
        let a = After::measure(&ds, &r, &knowing(vec![0, 1]), 0.2, &Progress::new()).unwrap();
        assert_eq!(a.columns, vec![0]);
        assert_eq!(a.attacker.not_published, vec!["zip".to_string()]);
        assert_eq!(
            a.attacker.label,
            "attacker knows 2 of 2 QIs; not published: zip"
        );
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["attacker"]["knows"][1], "zip");
        assert_eq!(json["attacker"]["not_published"][0], "zip");
    }
}
