//! The Risk screen's model: what the attacker knows (the picker), the
//! three attacks measured before and after anonymization, and the records
//! above the threshold.
//!
//! **Before** is the original table published as is; **after** is the
//! release currently shown on the Anonymize screen. Both columns are for
//! the attacker of the picker (its known attributes, in its order), and
//! every figure comes from the library's own functions:
//!
//! - **Key count** (the risk-assessment paper's attack simulator,
//!   `risk::simulate`): Pr(re-id) = 1 / records sharing the target's known
//!   values. Before, the keys are the original values, sensitive cells of
//!   semi-sensitive attributes hidden (wildcards, as the simulator has
//!   them). After, the same simulator runs on the *published* table: a
//!   record's key is what the release prints in the known columns — its
//!   group's generalized cells (`[30-39]`, `{Female,Male}`, `*`), or its
//!   own value where the release keeps it (`Cell::Original`, bucketization:
//!   Anatomy and CBG keep the QI values, so their key count is the
//!   original's). A cell an LGB release publishes as a bucket reference is
//!   hidden, like a sensitive cell before. Known attributes the release
//!   does not publish tell the attacker nothing and are left out (and
//!   named). Suppressed rows are not published: Pr 0.
//! - **Linkage** (`anonymize::measure_risk`, the code behind the
//!   Evaluation): the attacker holds the target's values and counts the
//!   published tuples whose cells contain them. Before, on the original
//!   (`anonymize::measure_before` on the known columns; this attacker holds
//!   every known value, so hidden cells only change the key count); after,
//!   on the
//!   release projected on the known quasi-identifiers — with every QI
//!   known this is the release itself, so the figures are the Evaluation's.
//! - **Breach** of the first sensitive attribute: p(t, s) from matching
//!   groups and buckets, by the same two functions.
//!
//! Each distribution is kept as its CDF, so a new threshold recounts the
//! records above it without a new job. The records above the threshold are
//! listed most exposed first; the worker keeps the [`MAX_LISTED`] most
//! exposed of all (records above any threshold are a prefix of that order).

use std::sync::Arc;

use fixedbitset::FixedBitSet;

use super::anonymize::{measure_before, step_series, Before, Curve};
use super::app::JobState;
use super::keymap::Action;
use super::worker::{JobFn, WorkerMsg};
use crate::anonymize::{self, Distribution};
use crate::data::{ColumnBuilder, ColumnKind, Dataset};
use crate::release::{Cell, Release};
use crate::risk::{self, CdfPoint, Knowledge, PrefixRow, RiskSummary};

/// Records kept for the list (most exposed first); the screen says how many
/// more there are.
pub const MAX_LISTED: usize = 5000;

/// Probabilities are sums of fractions: values this close are equal (as
/// in `risk::ProbabilitySummary`).
const TOLERANCE: f64 = 1e-9;

/// What a hidden cell (a bucket reference) is published as in the table
/// the after-simulator reads; the simulator treats it as a wildcard anyway.
const HIDDEN_LABEL: &str = "*";

/// One distribution of probabilities as the screen shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// Every source row (suppressed rows count with probability 0).
    pub records: usize,
    pub mean: f64,
    pub max: f64,
    /// Records whose probability is 1: singled out (re-identification) or
    /// whose sensitive value is certain (breach).
    pub certain: usize,
    /// Records whose probability is above the threshold.
    pub above: usize,
    /// The CDF as a step line from 0 to 1: (probability, share at or below).
    pub series: Vec<(f64, f64)>,
}

impl Figures {
    fn new(records: usize, mean: f64, max: f64, series: Vec<(f64, f64)>, threshold: f64) -> Self {
        let mut f = Figures {
            records,
            mean,
            max,
            certain: 0,
            above: 0,
            series,
        };
        f.certain = records - f.at_most(1.0 - 2.0 * TOLERANCE);
        f.set_threshold(threshold);
        f
    }

    fn from_cdf(records: usize, mean: f64, max: f64, cdf: &[CdfPoint], threshold: f64) -> Self {
        let series = step_series(cdf.iter().map(|p| (p.probability, p.share)));
        Self::new(records, mean, max, series, threshold)
    }

    fn from_distribution(d: &Distribution, threshold: f64) -> Self {
        let s = &d.summary;
        Self::from_cdf(s.records, s.mean, s.max, &d.cdf, threshold)
    }

    fn from_curve(c: &Curve, records: usize, threshold: f64) -> Self {
        Self::new(records, c.mean, c.max, c.series.clone(), threshold)
    }

    /// Records whose probability is at most `p`, read off the CDF.
    fn at_most(&self, p: f64) -> usize {
        let share = self
            .series
            .iter()
            .take_while(|(x, _)| *x <= p + TOLERANCE)
            .last()
            .map_or(0.0, |&(_, s)| s);
        (share * self.records as f64).round() as usize
    }

    fn set_threshold(&mut self, threshold: f64) {
        self.above = self.records - self.at_most(threshold).min(self.records);
    }
}

/// The three attacks on one table.
#[derive(Debug, Clone, PartialEq)]
pub struct Measures {
    /// Key-count simulator.
    pub simulator: Figures,
    /// Linkage attack.
    pub linkage: Figures,
    /// Breach probability: the attribute's name and its figures (`None`
    /// without a sensitive attribute).
    pub breach: Option<(String, Figures)>,
}

impl Measures {
    fn set_threshold(&mut self, threshold: f64) {
        self.simulator.set_threshold(threshold);
        self.linkage.set_threshold(threshold);
        if let Some((_, b)) = &mut self.breach {
            b.set_threshold(threshold);
        }
    }
}

/// A listed record: its source row and how many records it cannot be told
/// from (Pr(re-id) = 1 / matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    pub row: u32,
    pub matches: u32,
}

/// The most exposed records first (fewest matches, then row order), at
/// most [`MAX_LISTED`]; rows with no match (not published) are left out.
fn most_exposed(matches: &[u32]) -> Vec<Listed> {
    let mut rows: Vec<Listed> = (0..matches.len() as u32)
        .filter(|&r| matches[r as usize] > 0)
        .map(|row| Listed {
            row,
            matches: matches[row as usize],
        })
        .collect();
    let key = |l: &Listed| (l.matches, l.row);
    if rows.len() > MAX_LISTED {
        rows.select_nth_unstable_by_key(MAX_LISTED, key);
        rows.truncate(MAX_LISTED);
    }
    rows.sort_unstable_by_key(key);
    rows
}

/// What the Risk screen draws about the original table, derived once per
/// finished job (on the worker thread) and on threshold changes.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskView {
    /// Known attributes in the attacker's order.
    pub attributes: Vec<String>,
    pub summary: RiskSummary,
    /// (upper bound, records) per histogram bin; bins are (lower, upper].
    pub histogram: Vec<(String, u64)>,
    /// The simulator's empirical CDF as a step line: (Pr(re-id), share).
    pub cdf: Vec<(f64, f64)>,
    pub prefix: Vec<PrefixRow>,
    pub hidden_cells: usize,
    /// The three attacks on the original table.
    pub measures: Measures,
    /// The most exposed records by the key count.
    pub listed: Vec<Listed>,
}

impl RiskView {
    fn new(sim: risk::Simulation, before: &Before, breach: Option<String>) -> Self {
        let histogram = sim
            .histogram
            .iter()
            .map(|b| (format!("{}", b.upper), b.records as u64))
            .collect();
        let n = sim.summary.records;
        let threshold = sim.summary.threshold;
        let simulator =
            Figures::from_cdf(n, sim.summary.mean, sim.summary.max, &sim.cdf, threshold);
        let measures = Measures {
            linkage: Figures::from_curve(&before.reidentification, n, threshold),
            breach: breach
                .zip(before.breach.as_ref())
                .map(|(name, c)| (name, Figures::from_curve(c, n, threshold))),
            simulator,
        };
        RiskView {
            listed: most_exposed(&sim.matches),
            cdf: measures.simulator.series.clone(),
            attributes: sim.attributes,
            summary: sim.summary,
            histogram,
            prefix: sim.prefix,
            hidden_cells: sim.hidden_cells,
            measures,
        }
    }

    /// Re-count the records above a new threshold from the CDFs, without
    /// running the attacks again.
    pub fn set_threshold(&mut self, threshold: f64) {
        self.measures.set_threshold(threshold);
        self.summary.threshold = threshold;
        self.summary.records_above_threshold = self.measures.simulator.above;
    }
}

/// The three attacks on the release shown on the Anonymize screen, for
/// the attacker of the picker.
#[derive(Debug, Clone)]
pub struct AfterView {
    pub release: Arc<Release>,
    /// The picker's known columns the job was asked for (attacker order).
    pub known: Vec<usize>,
    /// Known columns the release publishes: those the attacks use.
    pub columns: Vec<usize>,
    /// Names of the known columns the release does not publish.
    pub unpublished: Vec<String>,
    pub measures: Measures,
    /// Per source row: records it cannot be told from in the published
    /// table by the key count (0: suppressed, not published).
    pub matches: Vec<u32>,
    /// Per source row: its equivalence group (GID − 1).
    pub group_of_row: Vec<Option<u32>>,
    /// `Release::carries_qi`, kept so drawing a row costs no scan.
    pub carries: Vec<Vec<bool>>,
    pub listed: Vec<Listed>,
}

impl AfterView {
    /// Whether this was computed for this release and attacker.
    pub fn is_for(&self, release: &Arc<Release>, known: &[usize]) -> bool {
        Arc::ptr_eq(&self.release, release) && self.known == known
    }
}

/// Which panel of the screen takes the cursor keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskFocus {
    Picker,
    Records,
}

/// Which records the list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordList {
    /// Above the threshold in the original table.
    Before,
    /// Above the threshold in the release.
    After,
}

/// Which attack the CDF chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskChart {
    KeyCount,
    Linkage,
    Breach,
}

impl RiskChart {
    const ALL: [RiskChart; 3] = [RiskChart::KeyCount, RiskChart::Linkage, RiskChart::Breach];

    pub fn title(self) -> &'static str {
        match self {
            RiskChart::KeyCount => "key count",
            RiskChart::Linkage => "linkage",
            RiskChart::Breach => "breach",
        }
    }

    /// This chart's figures among the measures.
    pub fn of(self, m: &Measures) -> Option<&Figures> {
        match self {
            RiskChart::KeyCount => Some(&m.simulator),
            RiskChart::Linkage => Some(&m.linkage),
            RiskChart::Breach => m.breach.as_ref().map(|(_, f)| f),
        }
    }
}

/// The Risk screen's inputs and results.
#[derive(Debug, Clone)]
pub struct RiskState {
    /// Attacker-visible columns (quasi-identifiers and semi-sensitive), in
    /// the attacker's order.
    pub order: Vec<usize>,
    /// Per column of the dataset: whether the attacker knows it.
    pub known: Vec<bool>,
    /// Index into `order`.
    pub cursor: usize,
    pub threshold: f64,
    /// The last finished job on the original table.
    pub view: Option<RiskView>,
    /// The inputs changed since `view` was computed.
    pub stale: bool,
    pub focus: RiskFocus,
    pub list: RecordList,
    /// Index into the shown list.
    pub list_cursor: usize,
    /// Records the list shows at once (set from the terminal size).
    pub list_page: usize,
    pub chart: RiskChart,
    /// The last finished job on the release.
    pub after: Option<AfterView>,
    pub after_job: JobState,
    /// The release and attacker of the latest job on the release.
    pub after_requested: Option<(Arc<Release>, Vec<usize>)>,
}

/// What the app does after a step of the Risk screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskEffect {
    None,
    /// The attacker changed: measure again.
    Recompute,
    /// Show this source row on the Data screen.
    Jump(usize),
}

impl RiskState {
    pub fn new(n_cols: usize, threshold: f64) -> Self {
        RiskState {
            order: Vec::new(),
            known: vec![false; n_cols],
            cursor: 0,
            threshold,
            view: None,
            stale: true,
            focus: RiskFocus::Picker,
            list: RecordList::Before,
            list_cursor: 0,
            list_page: 1,
            chart: RiskChart::KeyCount,
            after: None,
            after_job: JobState::Idle,
            after_requested: None,
        }
    }

    /// Known columns in the attacker's order.
    pub fn known_columns(&self) -> Vec<usize> {
        self.order
            .iter()
            .copied()
            .filter(|&c| self.known[c])
            .collect()
    }

    /// The shown list: the records above the threshold that were kept,
    /// and how many are above it in all.
    pub fn shown_list(&self) -> (&[Listed], usize) {
        let (listed, above) = match self.list {
            RecordList::Before => match &self.view {
                Some(v) => (&v.listed[..], v.measures.simulator.above),
                None => (&[][..], 0),
            },
            RecordList::After => match &self.after {
                Some(a) => (&a.listed[..], a.measures.simulator.above),
                None => (&[][..], 0),
            },
        };
        (&listed[..above.min(listed.len())], above)
    }

    /// Apply one action of the Risk screen.
    pub fn step(&mut self, action: &Action) -> RiskEffect {
        let last = self.order.len().saturating_sub(1);
        let listed = self.shown_list().0.len();
        let page = self.list_page.max(1);
        let on_list = self.focus == RiskFocus::Records;
        let lc = &mut self.list_cursor;
        match *action {
            Action::Left => self.focus = RiskFocus::Picker,
            Action::Right => self.focus = RiskFocus::Records,
            Action::Up if on_list => *lc = lc.saturating_sub(1),
            Action::Down if on_list => *lc = (*lc + 1).min(listed.saturating_sub(1)),
            Action::PageUp if on_list => *lc = lc.saturating_sub(page),
            Action::PageDown if on_list => *lc = (*lc + page).min(listed.saturating_sub(1)),
            Action::Scroll(by) => {
                *lc = lc
                    .saturating_add_signed(by as isize)
                    .min(listed.saturating_sub(1))
            }
            Action::First if on_list => *lc = 0,
            Action::Last if on_list => *lc = listed.saturating_sub(1),
            Action::JumpToRecord if on_list => {
                if let Some(l) = self.shown_list().0.get(self.list_cursor) {
                    return RiskEffect::Jump(l.row as usize);
                }
            }
            Action::Up => self.cursor = self.cursor.saturating_sub(1),
            Action::Down => self.cursor = (self.cursor + 1).min(last),
            Action::PageUp => self.cursor = self.cursor.saturating_sub(page),
            Action::PageDown => self.cursor = (self.cursor + page).min(last),
            Action::First => self.cursor = 0,
            Action::Last => self.cursor = last,
            // Enter on the picker toggles, as Space does.
            Action::ToggleKnown | Action::JumpToRecord if !on_list => {
                if let Some(&c) = self.order.get(self.cursor) {
                    self.known[c] = !self.known[c];
                    return RiskEffect::Recompute;
                }
            }
            Action::ToggleAllKnown => {
                let all = self.order.iter().all(|&c| self.known[c]);
                for &c in &self.order {
                    self.known[c] = !all;
                }
                if !self.order.is_empty() {
                    return RiskEffect::Recompute;
                }
            }
            Action::MoveKnownUp | Action::MoveKnownDown => {
                let up = *action == Action::MoveKnownUp;
                let i = self.cursor;
                let j = if up { i.checked_sub(1) } else { Some(i + 1) };
                if let Some(j) = j.filter(|&j| j < self.order.len() && i < self.order.len()) {
                    self.order.swap(i, j);
                    self.cursor = j;
                    if self.known[self.order[i]] && self.known[self.order[j]] {
                        return RiskEffect::Recompute;
                    }
                }
            }
            Action::ThresholdUp | Action::ThresholdDown => {
                let t = self.threshold;
                let next = if *action == Action::ThresholdUp {
                    super::app::THRESHOLDS
                        .iter()
                        .copied()
                        .find(|&x| x > t + 1e-12)
                } else {
                    super::app::THRESHOLDS
                        .iter()
                        .rev()
                        .copied()
                        .find(|&x| x < t - 1e-12)
                };
                if let Some(x) = next {
                    self.set_threshold(x);
                }
            }
            Action::CycleMeasure(by) => {
                let i = RiskChart::ALL
                    .iter()
                    .position(|&c| c == self.chart)
                    .unwrap_or(0);
                let n = RiskChart::ALL.len() as i32;
                self.chart = RiskChart::ALL[(i as i32 + by).rem_euclid(n) as usize];
            }
            Action::SwitchRecordList => {
                self.list = match self.list {
                    RecordList::Before => RecordList::After,
                    RecordList::After => RecordList::Before,
                };
                self.list_cursor = 0;
                self.focus = RiskFocus::Records;
            }
            Action::Recompute => return RiskEffect::Recompute,
            _ => {}
        }
        RiskEffect::None
    }

    fn set_threshold(&mut self, threshold: f64) {
        self.threshold = threshold;
        if let Some(v) = &mut self.view {
            v.set_threshold(threshold);
        }
        if let Some(a) = &mut self.after {
            a.measures.set_threshold(threshold);
        }
        self.clamp_list_cursor();
    }

    fn clamp_list_cursor(&mut self) {
        let n = self.shown_list().0.len();
        self.list_cursor = self.list_cursor.min(n.saturating_sub(1));
    }

    /// Apply a message of the job on the original table; a failure's
    /// message is returned for a popup.
    pub fn on_before(
        &mut self,
        job: &mut JobState,
        msg: WorkerMsg<Box<RiskView>>,
    ) -> Option<String> {
        let current = match job {
            JobState::Running { id, .. } => *id,
            _ => return None,
        };
        if msg.id() != current {
            return None;
        }
        match msg {
            WorkerMsg::Progress { id, fraction } => *job = JobState::Running { id, fraction },
            WorkerMsg::Done { mut output, .. } => {
                output.set_threshold(self.threshold);
                self.view = Some(*output);
                self.stale = false;
                *job = JobState::Done;
                self.clamp_list_cursor();
            }
            WorkerMsg::Cancelled { .. } => *job = JobState::Cancelled,
            WorkerMsg::Failed { error, .. } => {
                *job = JobState::Failed;
                return Some(error);
            }
        }
        None
    }

    /// Apply a message of the job on the release; a failure's message is
    /// returned for a popup.
    pub fn on_after(&mut self, msg: WorkerMsg<Box<AfterView>>) -> Option<String> {
        let current = match self.after_job {
            JobState::Running { id, .. } => id,
            _ => return None,
        };
        if msg.id() != current {
            return None;
        }
        match msg {
            WorkerMsg::Progress { id, fraction } => {
                self.after_job = JobState::Running { id, fraction }
            }
            WorkerMsg::Done { mut output, .. } => {
                output.measures.set_threshold(self.threshold);
                self.after = Some(*output);
                self.after_job = JobState::Done;
                self.clamp_list_cursor();
            }
            WorkerMsg::Cancelled { .. } => self.after_job = JobState::Cancelled,
            WorkerMsg::Failed { error, .. } => {
                self.after_job = JobState::Failed;
                return Some(error);
            }
        }
        None
    }
}

/// The job on the original table: the key-count simulation for the known
/// columns (`hidden`: their hidden cells), and the linkage attack and the
/// breach of `sensitive` on the original published as is.
pub fn before_job(
    ds: Arc<Dataset>,
    columns: Vec<usize>,
    hidden: Vec<Option<Arc<FixedBitSet>>>,
    sensitive: Option<usize>,
    threshold: f64,
) -> JobFn<Box<RiskView>> {
    Box::new(move |progress| {
        let hidden: Vec<Option<&FixedBitSet>> = hidden.iter().map(|h| h.as_deref()).collect();
        let knowledge = Knowledge {
            columns: &columns,
            hidden: &hidden,
        };
        let sim = risk::simulate(&ds, knowledge, threshold, progress)?;
        let before = measure_before(&ds, &columns, sensitive, progress)?;
        let name = sensitive.map(|s| ds.col(s).name().to_string());
        Ok(Box::new(RiskView::new(sim, &before, name)))
    })
}

/// The job on a release for the attacker knowing `known` (see the module
/// doc).
pub fn after_job(
    ds: Arc<Dataset>,
    release: Arc<Release>,
    known: Vec<usize>,
    threshold: f64,
) -> JobFn<Box<AfterView>> {
    Box::new(move |progress| {
        Ok(Box::new(measure_after(
            &ds, release, known, threshold, progress,
        )?))
    })
}

/// The three attacks on `release` for the attacker knowing `known`.
pub fn measure_after(
    ds: &Dataset,
    release: Arc<Release>,
    known: Vec<usize>,
    threshold: f64,
    progress: &crate::progress::Progress,
) -> crate::Result<AfterView> {
    let columns: Vec<usize> = known
        .iter()
        .copied()
        .filter(|c| release.quasi_identifiers.contains(c))
        .collect();
    let unpublished = known
        .iter()
        .filter(|c| !columns.contains(c))
        .map(|&c| ds.col(c).name().to_string())
        .collect();
    let n = ds.n_rows();

    let table = published_table(&release, ds, &columns)?;
    // A table of no columns has no rows to simulate on: knowing nothing,
    // every published record hides among all of them.
    let published_matches = if columns.is_empty() {
        vec![table.source.len() as u32; table.source.len()]
    } else {
        let hidden: Vec<Option<&FixedBitSet>> = table.hidden.iter().map(Some).collect();
        let positions: Vec<usize> = (0..columns.len()).collect();
        let knowledge = Knowledge {
            columns: &positions,
            hidden: &hidden,
        };
        risk::simulate(&table.dataset, knowledge, threshold, progress)?.matches
    };
    let mut matches = vec![0u32; n];
    for (&r, &m) in table.source.iter().zip(&published_matches) {
        matches[r as usize] = m;
    }
    let probabilities: Vec<f64> = matches
        .iter()
        .map(|&m| if m == 0 { 0.0 } else { 1.0 / f64::from(m) })
        .collect();
    let summary = risk::ProbabilitySummary::new(&probabilities, table.source.len(), threshold);
    let simulator = Figures::from_cdf(
        n,
        summary.mean,
        summary.max,
        &risk::probability_cdf(&probabilities),
        threshold,
    );

    let projected = project(&release, &columns);
    let (reidentification, breach, _) =
        anonymize::measure_risk(projected.as_ref().unwrap_or(&release), ds, progress)?;
    let breach = breach.zip(release.sensitive.first()).map(|(d, &s)| {
        (
            ds.col(s).name().to_string(),
            Figures::from_distribution(&d, threshold),
        )
    });
    Ok(AfterView {
        group_of_row: release.group_of_row(),
        carries: release.carries_qi(),
        listed: most_exposed(&matches),
        measures: Measures {
            simulator,
            linkage: Figures::from_distribution(&reidentification, threshold),
            breach,
        },
        matches,
        release,
        known,
        columns,
        unpublished,
    })
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

/// The published table on some known columns, as a dataset the simulator
/// reads: one row per published row, group by group.
struct PublishedTable {
    dataset: Dataset,
    /// Source row of each published row.
    source: Vec<u32>,
    /// Per column: published rows whose cell is a bucket reference.
    hidden: Vec<FixedBitSet>,
}

fn published_table(
    release: &Release,
    ds: &Dataset,
    columns: &[usize],
) -> crate::Result<PublishedTable> {
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
                if !carries[g].get(a).copied().unwrap_or(true) {
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
                .map_err(|e| crate::Error::Parameter(format!("published table: {e}")))
        })
        .collect::<crate::Result<Vec<_>>>()?;
    let dataset = Dataset::new("published", cols)?;
    Ok(PublishedTable {
        dataset,
        source,
        hidden,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
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

    #[test]
    fn threshold_recount_matches_the_simulator() {
        let ds = table();
        for t in super::super::app::THRESHOLDS {
            let sim = risk::simulate(&ds, Knowledge::plain(&[1]), t, &Progress::new()).unwrap();
            let expected = sim.summary.records_above_threshold;
            let before = measure_before(&ds, &[1], Some(2), &Progress::new()).unwrap();
            let mut view = RiskView::new(sim, &before, Some("disease".into()));
            view.set_threshold(0.0);
            view.set_threshold(t);
            assert_eq!(view.summary.records_above_threshold, expected, "t = {t}");
            assert_eq!(view.measures.simulator.above, expected, "t = {t}");
        }
    }

    #[test]
    fn key_count_after_reads_the_published_cells() {
        let ds = table();
        let r = Arc::new(release(&ds));
        let a = measure_after(&ds, Arc::clone(&r), vec![0, 1], 0.4, &Progress::new()).unwrap();
        // Group 0 publishes ([30-32], own zip): zips 1,1,2 → 2,2,1 records
        // share the key; group 1 publishes ([40-42], *): 3 each.
        assert_eq!(a.matches, vec![2, 2, 1, 3, 3, 3]);
        assert_eq!(a.measures.simulator.certain, 1);
        // 1 and ½ twice are above 0.4.
        assert_eq!(a.measures.simulator.above, 3);
        assert_eq!(a.listed[0], Listed { row: 2, matches: 1 });
        assert_eq!(a.group_of_row[4], Some(1));
        // Knowing age only: the two groups, three records each.
        let a = measure_after(&ds, r, vec![0], 0.4, &Progress::new()).unwrap();
        assert_eq!(a.matches, vec![3; 6]);
        assert_eq!(a.measures.simulator.above, 0);
    }

    #[test]
    fn linkage_after_is_the_evaluation_when_every_qi_is_known() {
        let ds = table();
        let r = Arc::new(release(&ds));
        let (reid, breach, _) = anonymize::measure_risk(&r, &ds, &Progress::new()).unwrap();
        let a = measure_after(&ds, Arc::clone(&r), vec![1, 0], 0.2, &Progress::new()).unwrap();
        assert_eq!(a.measures.linkage, Figures::from_distribution(&reid, 0.2));
        let b = breach.unwrap();
        assert_eq!(
            a.measures.breach.as_ref().map(|(_, f)| f),
            Some(&Figures::from_distribution(&b, 0.2))
        );
        // Forgetting zip projects it away: every record matches its group.
        let a = measure_after(&ds, r, vec![0], 0.2, &Progress::new()).unwrap();
        assert!((a.measures.linkage.mean - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.measures.linkage.certain, 0);
    }

    #[test]
    fn unpublished_known_columns_are_named_and_ignored() {
        let ds = table();
        let mut r = release(&ds);
        r.quasi_identifiers = vec![0];
        for g in &mut r.groups {
            g.cells.truncate(1);
        }
        let a = measure_after(&ds, Arc::new(r), vec![0, 1], 0.2, &Progress::new()).unwrap();
        assert_eq!(a.columns, vec![0]);
        assert_eq!(a.unpublished, vec!["zip".to_string()]);
    }

    #[test]
    fn figures_count_from_the_cdf() {
        // 1, ½, ½, ⅓ ×3.
        let cdf = risk::cdf(&[1, 2, 2, 3, 3, 3]);
        let f = Figures::from_cdf(6, 0.5, 1.0, &cdf, 0.4);
        assert_eq!((f.certain, f.above), (1, 3));
        let mut g = f.clone();
        g.set_threshold(1.0 / 3.0);
        assert_eq!(g.above, 3);
        g.set_threshold(0.0);
        assert_eq!(g.above, 6);
        g.set_threshold(1.0);
        assert_eq!(g.above, 0);
    }

    #[test]
    fn the_most_exposed_come_first_and_at_most_max_listed() {
        let matches: Vec<u32> = (0..(MAX_LISTED as u32 + 10)).map(|r| r % 7 + 1).collect();
        let l = most_exposed(&matches);
        assert_eq!(l.len(), MAX_LISTED);
        assert!(l
            .windows(2)
            .all(|w| (w[0].matches, w[0].row) < (w[1].matches, w[1].row)));
        assert_eq!(l[0], Listed { row: 0, matches: 1 });
        assert!(most_exposed(&[0, 2, 2]).iter().all(|l| l.row != 0));
    }
}
