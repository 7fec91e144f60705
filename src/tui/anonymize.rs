//! The Anonymize screen's model: what is asked (algorithm, k, l, seed),
//! the jobs that answer it, and what the screen draws from the answer.
//!
//! One request runs `anonymize::run` and `anonymize::evaluate` — the same
//! pipeline as the CLI's `anonymize` and `compare`, so a figure means the
//! same everywhere — in the anonymize job slot. The query workload is the
//! slow part of `evaluate` (hundreds of milliseconds on Adult, and it cannot
//! be cancelled), so it is left out of that job and run afterwards in a slot
//! of its own: the release, its checks and its risk figures come back
//! within a blink, the query error a moment later, and a newer request
//! never waits behind a stale workload.
//!
//! "Before" figures are measured by the same code as "after": the original
//! table, published as is, is a Release with one group per distinct QI
//! combination and exact cells; its linkage attack is the key-count
//! Pr(re-id), and its breach probability is the share of a record's
//! sensitive value in its QI class. It depends only on the roles, so it is
//! computed once and reused while k, l, algorithm and seed change.
//!
//! While the app is idle, [`Prefetch`] runs the same [`job`] for the
//! focused parameter's neighbours (k ± 1, or l ± 1 / p ± 1) in a slot of
//! its own and caches a few outcomes keyed by the full inputs, so a press
//! onto a neighbour is shown without waiting for the algorithm (CBG takes
//! over 100 ms on Adult). A cached view is what a fresh run would give: the
//! same function on the same inputs, which name every generation the run
//! reads.

use std::sync::Arc;

use super::app::JobState;
use super::keymap::Action;
use super::record::{record_detail, RecordDetail};
use super::worker::{JobFn, JobId};
use crate::algorithms::full_domain::{self, Metric, SearchReport};
use crate::algorithms::pk::{self, PkBound, PkOptions};
use crate::algorithms::{self, Options, Request};
use crate::anonymize::{self, Evaluation, Measure};
use crate::data::{Dataset, Role, Roles};
use crate::metrics::{self, QueryReport};
use crate::partition::Partition;
use crate::progress::Progress;
use crate::release::{
    published_headers, published_row_indexed, BucketIndex, Cell, EquivalenceGroup, Release,
};
use crate::risk::{self, CdfPoint, LocalRisk, Matching};

/// Widest a published column is drawn; longer cells (large sets) are cut.
pub const MAX_PUBLISHED_WIDTH: usize = 28;
/// Groups whose first row is rendered to size the published columns.
const WIDTH_SAMPLE_GROUPS: usize = 2000;

/// An algorithm of the registry, as the screen lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlgorithmChoice {
    pub id: &'static str,
    pub name: &'static str,
    pub uses_l: bool,
    /// Reads the semi-sensitive cells and per-attribute t-closeness
    /// ([`algorithms::Algorithm::reads_semi_sensitive`]: LGB). The others leave the
    /// semi-sensitive columns out of the release, as the screen did before
    /// LGB. (The CLI gives them to the others as quasi-identifiers instead;
    /// here that would need a hierarchy for each of them under full-domain.)
    pub reads_cells: bool,
}

impl AlgorithmChoice {
    pub fn all() -> Vec<AlgorithmChoice> {
        algorithms::registry()
            .iter()
            .map(|a| AlgorithmChoice {
                id: a.id(),
                name: a.name(),
                uses_l: a.uses_l(),
                reads_cells: a.reads_semi_sensitive(),
            })
            .collect()
    }
}

/// The inputs of one anonymization: parameters and the roles generation
/// they were read with. Two equal inputs give the same release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnonymizeInputs {
    pub algorithm: &'static str,
    pub k: u32,
    /// `None` when the algorithm does not read l.
    pub l: Option<u32>,
    pub seed: u64,
    pub roles_generation: u64,
    /// LGB only: what it reads beyond the roles.
    pub lgb: Option<LgbInputs>,
    /// Full-domain only: its settings and the hierarchies it reads.
    pub full_domain: Option<FullDomainInputs>,
    /// pk-enhanced and pk-greedy only: what they read beyond k and the
    /// roles.
    pub pk: Option<PkInputs>,
}

/// The p-sensitive part of [`AnonymizeInputs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PkInputs {
    pub p: u32,
    /// Generation of the session's hierarchies (the QIs' information loss
    /// is measured on them).
    pub hierarchies_generation: u64,
}

/// Whether an algorithm reads p and the p-sensitive options
/// (`Options::pk`): the p-sensitive k-anonymity paper's two clusterings.
pub fn reads_p(algorithm: &str) -> bool {
    matches!(algorithm, "pk-enhanced" | "pk-greedy")
}

/// A parameter of the Anonymize screen that ←/→ change when focused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Param {
    #[default]
    K,
    L,
    P,
}

impl Param {
    pub fn name(self) -> &'static str {
        match self {
            Param::K => "k",
            Param::L => "l",
            Param::P => "p",
        }
    }
}

/// Condition 2's bound for p over every sensitive attribute of the roles,
/// or why it cannot be computed (no sensitive attribute).
pub fn pk_bound(ds: &Dataset, roles: &Roles, p: u32) -> Result<PkBound, String> {
    let options = PkOptions {
        p,
        ..PkOptions::default()
    };
    pk::max_clusters(ds, &roles.with(Role::Sensitive), &options).map_err(|e| e.to_string())
}

/// The full-domain part of [`AnonymizeInputs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullDomainInputs {
    /// Record-suppression limit in percent of the rows.
    pub suppression_pct: u32,
    pub metric: Metric,
    /// Generation of the session's hierarchies.
    pub hierarchies_generation: u64,
}

/// The LGB part of [`AnonymizeInputs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LgbInputs {
    /// Generation of the session's cell sensitivity (bumped on every mark).
    pub cells_generation: u64,
    /// The attribute protected by t-closeness instead of l-diversity, and
    /// t in thousandths (so the inputs compare exactly).
    pub t_closeness: Option<(usize, u32)>,
}

/// A probability distribution as drawn: mean, max and the CDF as a step
/// line of (probability, share of records at or below it).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub mean: f64,
    pub max: f64,
    pub series: Vec<(f64, f64)>,
}

impl Curve {
    fn new(mean: f64, max: f64, cdf: &[CdfPoint]) -> Self {
        Curve {
            mean,
            max,
            series: step_series(cdf.iter().map(|p| (p.probability, p.share))),
        }
    }
}

/// An empirical CDF's points as a line that steps up at each point and
/// runs from 0 to 1 on the x axis.
pub fn step_series(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0)];
    let mut share = 0.0;
    for (p, s) in points {
        out.push((p, share));
        out.push((p, s));
        share = s;
    }
    out.push((1.0, share));
    out
}

/// The original table's risk, published as is.
#[derive(Debug, Clone, PartialEq)]
pub struct Before {
    pub reidentification: Curve,
    /// Breach probability of the first sensitive attribute.
    pub breach: Option<Curve>,
}

/// What identifies a [`Before`]: the QIs and the sensitive attribute.
pub type BeforeKey = (Vec<usize>, Option<usize>);

/// One finished anonymization, with everything the screen draws from it
/// derived on the worker thread.
#[derive(Debug, Clone)]
pub struct AnonymizeView {
    pub inputs: AnonymizeInputs,
    pub release: Arc<Release>,
    /// Query error left out (see the module doc); it arrives separately.
    pub evaluation: Evaluation,
    pub before_key: BeforeKey,
    pub before: Arc<Before>,
    pub reidentification: Curve,
    /// Name of the attribute and its curve after anonymization.
    pub breach: Option<(String, Curve)>,
    /// Milliseconds of the whole job: algorithm and measurements.
    pub total_ms: f64,
    /// Milliseconds of each part of the job, in order: the algorithm, the
    /// evaluation (verification, risk, utility; the published table's
    /// layout is built beside it), the original table's risk (0 when
    /// reused) and building the rest of the view. For the latency
    /// benchmark (`benches/tui_live.rs`).
    pub phases: Vec<(&'static str, f64)>,
    /// Full-domain only: the optimal node and the search's figures.
    pub full_domain: Option<SearchReport>,
    /// The verifier's findings as shown: see [`verification_lines`].
    pub checks: Vec<CheckLine>,
    /// Published table: header and drawn width of each column.
    pub headers: Vec<String>,
    pub widths: Vec<u16>,
    /// Roles the release was made with (which columns pass through).
    roles: Vec<Role>,
    /// Published rows before each group, and the total at the end.
    group_starts: Vec<usize>,
    /// Local and release-wide buckets per row, for rendering rows.
    index: BucketIndex,
    /// LGB releases: Lemma 2 breach probability of every sensitive cell.
    pub local_risk: Option<Arc<LocalRisk>>,
}

impl AnonymizeView {
    /// Rows of the published table.
    pub fn published_rows(&self) -> usize {
        self.group_starts.last().copied().unwrap_or(0)
    }

    /// The group of published row `i` and its place in the group.
    fn locate(&self, i: usize) -> Option<(usize, usize)> {
        locate(&self.group_starts, i)
    }

    /// The published table's row `i` (in published order: group by group).
    pub fn row(&self, ds: &Dataset, i: usize) -> Option<Vec<String>> {
        let (g, member) = self.locate(i)?;
        Some(published_row_indexed(
            &self.release,
            ds,
            Some(self.roles.as_slice()),
            g,
            member,
            &self.index,
        ))
    }

    /// What the attacker learns about published row `i` (see `record`).
    pub fn detail(&self, ds: &Dataset, i: usize) -> Option<RecordDetail> {
        let (g, member) = self.locate(i)?;
        Some(record_detail(
            &self.release,
            ds,
            &self.index,
            self.local_risk.as_deref(),
            (g, member, i),
        ))
    }
}

/// One line of the verification panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLine {
    pub holds: bool,
    pub claim: String,
    pub detail: String,
}

/// The verifier's checks, claims first: each guarantee the algorithm
/// claims on a line of its own, then the structural checks (the release
/// fits the data, identifiers dropped, cells truthful, ...) folded into one
/// line while they all hold, since they are the same on every release —
/// and listed one by one when one fails.
pub fn verification_lines(
    checks: &[crate::privacy::verify::Check],
    claims: usize,
) -> Vec<CheckLine> {
    let split = checks.len().saturating_sub(claims);
    let (structure, claimed) = checks.split_at(split);
    let line = |c: &crate::privacy::verify::Check| CheckLine {
        holds: c.holds,
        claim: c.claim.clone(),
        detail: c.detail.clone(),
    };
    let mut out: Vec<CheckLine> = claimed.iter().map(line).collect();
    if structure.iter().all(|c| c.holds) {
        out.push(CheckLine {
            holds: true,
            claim: "structure".into(),
            detail: format!("{} checks hold", structure.len()),
        });
    } else {
        out.extend(structure.iter().filter(|c| !c.holds).map(line));
    }
    out
}

/// The query error of one release.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOutcome {
    /// `None` without a sensitive attribute to aggregate.
    pub report: Option<QueryReport>,
}

/// The query workload of the shown release.
#[derive(Debug, Clone, PartialEq)]
pub enum QueriesState {
    /// Nothing to measure yet.
    Idle,
    Running {
        id: JobId,
    },
    Done(QueryOutcome),
    Failed(String),
}

/// The rows of the published table on screen, rendered when the release,
/// the scroll position or the terminal size changes — never while drawing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PublishedTable {
    /// First published row on screen.
    pub top: usize,
    /// The selected published row.
    pub cursor: usize,
    /// Rows that fit on screen.
    pub page: usize,
    /// The rows from `top`, at most `page` of them.
    pub rows: Vec<Vec<String>>,
    /// Column widths: the release's, widened by the rows on screen.
    pub widths: Vec<u16>,
}

/// Everything the Anonymize screen shows and asks. k, l and the seed are
/// the session's parameters (`App::params`), saved with the project.
#[derive(Debug, Clone)]
pub struct AnonymizeState {
    pub algorithms: Vec<AlgorithmChoice>,
    /// Index into `algorithms`.
    pub algorithm: usize,
    /// The last finished anonymization.
    pub view: Option<AnonymizeView>,
    /// The last request failed: its inputs and what the algorithm said
    /// (infeasible parameters, such as an l the data is not eligible for).
    pub error: Option<(AnonymizeInputs, String)>,
    /// Why nothing can run with the current roles.
    pub blocked: Option<String>,
    /// Inputs of the latest request sent to the worker.
    pub requested: Option<AnonymizeInputs>,
    pub job: JobState,
    pub queries: QueriesState,
    pub table: PublishedTable,
    /// Whether the record detail replaces the charts.
    pub show_detail: bool,
    /// The selected record's detail, kept while `show_detail`.
    pub detail: Option<RecordDetail>,
    /// The attribute LGB protects by t-closeness (t is the session's
    /// `params.t`); the others use l-diversity.
    pub t_closeness: Option<usize>,
    /// pk algorithms: Condition 2's maxClusters for the session's p and
    /// sensitive attributes, or why there is none; recomputed when p, the
    /// roles or the algorithm change.
    pub pk_bound: Option<Result<PkBound, String>>,
    /// The last bound computed and its (roles generation, p): counting
    /// the sensitive values of every row is O(rows), too much to repeat
    /// on the UI thread at each refresh. The TUI's bound reads no
    /// hierarchy (no protected subtrees), so the hierarchies are not part
    /// of the key.
    pk_cache: Option<((u64, u32), Result<PkBound, String>)>,
    /// The parameter ←/→ change (see [`AnonymizeState::focused`]).
    pub focus: Param,
}

impl AnonymizeState {
    pub fn new() -> Self {
        AnonymizeState {
            algorithms: AlgorithmChoice::all(),
            algorithm: 0,
            view: None,
            error: None,
            blocked: None,
            requested: None,
            job: JobState::Idle,
            queries: QueriesState::Idle,
            table: PublishedTable::default(),
            show_detail: false,
            detail: None,
            t_closeness: None,
            pk_bound: None,
            pk_cache: None,
            focus: Param::K,
        }
    }

    /// Start on the algorithm a project saved, if it names one that exists.
    pub fn starting_with(algorithm: Option<&str>) -> Self {
        let mut s = Self::new();
        if let Some(i) = algorithm.and_then(|id| s.algorithms.iter().position(|a| a.id == id)) {
            s.algorithm = i;
        }
        s
    }

    pub fn choice(&self) -> &AlgorithmChoice {
        &self.algorithms[self.algorithm]
    }

    /// The parameters the chosen algorithm reads, in the panel's order:
    /// k, then l or p.
    pub fn params(&self) -> Vec<Param> {
        let choice = self.choice();
        let mut out = vec![Param::K];
        if reads_p(choice.id) {
            out.push(Param::P);
        } else if choice.uses_l {
            out.push(Param::L);
        }
        out
    }

    /// The focused parameter; k when the chosen algorithm does not read
    /// the one focused last (the focus comes back when it does again).
    pub fn focused(&self) -> Param {
        if self.params().contains(&self.focus) {
            self.focus
        } else {
            Param::K
        }
    }

    /// Focus the next parameter the chosen algorithm reads.
    pub fn focus_next(&mut self) {
        let params = self.params();
        let i = params
            .iter()
            .position(|&p| p == self.focused())
            .unwrap_or(0);
        self.focus = params[(i + 1) % params.len()];
    }

    /// What ←/→ (`by` = ∓1) ask: a change of the focused parameter.
    pub fn adjust_focused(&self, by: i32) -> Action {
        match self.focused() {
            Param::K => Action::AdjustK(by),
            Param::L => Action::AdjustL(by),
            Param::P => Action::AdjustP(by),
        }
    }

    /// Set `pk_bound` for the session's p when the chosen algorithm reads
    /// p (else clear it), reusing the last bound while the roles and p
    /// are the same.
    pub fn refresh_pk_bound(&mut self, ds: &Dataset, roles: &Roles, generation: u64, p: u32) {
        if !reads_p(self.choice().id) {
            self.pk_bound = None;
            return;
        }
        let key = (generation, p);
        let bound = match &self.pk_cache {
            Some((k, b)) if *k == key => b.clone(),
            _ => {
                let b = pk_bound(ds, roles, p);
                self.pk_cache = Some((key, b.clone()));
                b
            }
        };
        self.pk_bound = Some(bound);
    }

    /// Refill the rows on screen from the shown release, keep the cursor
    /// on a published row and on screen, and redo the record detail.
    pub fn refresh_table(&mut self, ds: &Dataset) {
        let t = &mut self.table;
        t.rows.clear();
        self.detail = None;
        let Some(view) = &self.view else {
            t.widths.clear();
            return;
        };
        let n = view.published_rows();
        let page = t.page.max(1);
        t.cursor = t.cursor.min(n.saturating_sub(1));
        if t.cursor < t.top {
            t.top = t.cursor;
        } else if t.cursor >= t.top + page {
            t.top = t.cursor + 1 - page;
        }
        t.top = t.top.min(n.saturating_sub(page));
        if self.show_detail {
            self.detail = view.detail(ds, t.cursor);
        }
        t.widths = view.widths.clone();
        for i in super::app::visible_window(n, t.top, t.page) {
            if let Some(row) = view.row(ds, i) {
                for (w, cell) in t.widths.iter_mut().zip(&row) {
                    *w = (*w).max(text_width(cell).min(MAX_PUBLISHED_WIDTH as u16));
                }
                t.rows.push(row);
            }
        }
    }
}

impl Default for AnonymizeState {
    fn default() -> Self {
        Self::new()
    }
}

/// Why the screen cannot run with the current roles, or `None`.
pub fn blocked(roles: &Roles, algorithm: &AlgorithmChoice) -> Option<String> {
    if roles.with(Role::QuasiIdentifier).is_empty() {
        return Some(
            "No quasi-identifier yet: on the Data screen (key 1), give the columns an \
             attacker may know the QI role (key Q)."
                .into(),
        );
    }
    if algorithm.reads_cells {
        if roles.with(Role::Sensitive).is_empty() && roles.with(Role::SemiSensitive).is_empty() {
            return Some(format!(
                "{} needs a sensitive or semi-sensitive attribute: on the Data screen (key 1), \
                 mark one sensitive (key s) or semi-sensitive (key S) and mark its cells (key m).",
                algorithm.name
            ));
        }
        return None;
    }
    if (algorithm.uses_l || reads_p(algorithm.id)) && roles.with(Role::Sensitive).is_empty() {
        return Some(format!(
            "{} needs a sensitive attribute: on the Data screen (key 1), mark one \
             sensitive (key s).",
            algorithm.name
        ));
    }
    None
}

/// The job for one request. `before` is reused when its key still holds.
pub fn job(
    ds: Arc<Dataset>,
    roles: Roles,
    inputs: AnonymizeInputs,
    before: Option<(BeforeKey, Arc<Before>)>,
    options: Options,
) -> JobFn<Box<AnonymizeView>> {
    Box::new(move |progress| {
        let start = std::time::Instant::now();
        let mut phases = Vec::with_capacity(4);
        let mut lap = start;
        let mut phase = |name: &'static str| {
            let now = std::time::Instant::now();
            phases.push((name, (now - lap).as_secs_f64() * 1000.0));
            lap = now;
        };
        let req = request(&ds, &roles, &inputs, options);
        let sensitive = req.sensitive.clone();
        let (release, ms, report) = run_release(&req, &inputs, progress)?;
        phase("algorithm");
        let skip_queries = Measure {
            queries: 0,
            query_seed: inputs.seed,
        };
        let roles = roles.as_slice().to_vec();
        // The published table's layout reads the release only: it is built
        // beside the evaluation, on the core the evaluation leaves idle.
        let (evaluation, layout) = rayon::join(
            || anonymize::evaluate(&release, &ds, ms, &skip_queries, progress),
            || TableLayout::new(&release, &ds, &roles),
        );
        let mut evaluation = evaluation?;
        // The p-sensitive paper's measures (IL, Div, Hom), as `compare`
        // gives them for these algorithms.
        if inputs.pk.is_some() {
            anonymize::measure_pk(&mut evaluation, &release, &req)?;
        }
        phase("evaluation");
        // The original table published as is shows every column the
        // release generalizes (for LGB, the semi-sensitive ones too).
        let before_key: BeforeKey = (
            release.quasi_identifiers.clone(),
            sensitive.first().copied(),
        );
        let before = match before {
            Some((key, b)) if key == before_key => b,
            _ => Arc::new(measure_before(&ds, &before_key.0, before_key.1, progress)?),
        };
        phase("before");
        let breach = match (&evaluation.breach, release.sensitive.first()) {
            (Some(d), Some(&s)) => Some((
                ds.col(s).name().to_string(),
                Curve::new(d.summary.mean, d.summary.max, &d.cdf),
            )),
            _ => None,
        };
        let r = &evaluation.reidentification;
        let reidentification = Curve::new(r.summary.mean, r.summary.max, &r.cdf);
        // Per-cell breach probabilities for the record detail: the
        // evaluation keeps only their distribution.
        let local_risk = if release.local_buckets.is_empty() {
            None
        } else {
            Some(Arc::new(risk::local_risk(&release, &ds, progress)?))
        };
        let checks = verification_lines(&evaluation.verification.checks, release.claims.len());
        let mut view = AnonymizeView {
            inputs,
            release: Arc::new(release),
            evaluation,
            before_key,
            before,
            reidentification,
            breach,
            total_ms: 0.0,
            phases: Vec::new(),
            full_domain: report,
            checks,
            widths: layout.widths,
            headers: layout.headers,
            roles,
            group_starts: layout.group_starts,
            index: layout.index,
            local_risk,
        };
        phase("view");
        view.phases = phases;
        view.total_ms = start.elapsed().as_secs_f64() * 1000.0;
        Ok(Box::new(view))
    })
}

/// The request `inputs` make on a dataset with `roles`. LGB reads the
/// semi-sensitive columns from the options and publishes them; the other
/// algorithms know no per-cell sensitivity and leave them out (see
/// `AlgorithmChoice::reads_cells`).
pub fn request<'a>(
    ds: &'a Dataset,
    roles: &Roles,
    inputs: &AnonymizeInputs,
    options: Options,
) -> Request<'a> {
    Request {
        ds,
        qi: roles.with(Role::QuasiIdentifier),
        sensitive: roles.with(Role::Sensitive),
        identifiers: roles.with(Role::Identifier),
        k: inputs.k,
        l: inputs.l.unwrap_or(1),
        seed: inputs.seed,
        options,
    }
}

/// Run the algorithm of `inputs`: the release, the algorithm's
/// milliseconds and, for full-domain, its search report (the optimal
/// levels are not part of the release, so its search is run directly).
pub fn run_release(
    req: &Request<'_>,
    inputs: &AnonymizeInputs,
    progress: &Progress,
) -> crate::Result<(Release, f64, Option<SearchReport>)> {
    if inputs.full_domain.is_some() {
        let t = std::time::Instant::now();
        let (release, report) = full_domain::search(req, progress)?;
        Ok((release, t.elapsed().as_secs_f64() * 1000.0, Some(report)))
    } else {
        let (release, ms) = anonymize::run(inputs.algorithm, req, progress)?;
        Ok((release, ms, None))
    }
}

/// The job measuring the query error of a release, with the workload the
/// CLI uses (its size, and the seed as the workload's seed).
pub fn queries_job(ds: Arc<Dataset>, release: Arc<Release>, seed: u64) -> JobFn<QueryOutcome> {
    Box::new(move |progress| {
        let report = match release.sensitive.first() {
            Some(&s) => Some(metrics::query_error(
                &release,
                &ds,
                s,
                metrics::DEFAULT_QUERIES,
                seed,
                progress,
            )?),
            None => None,
        };
        Ok(QueryOutcome { report })
    })
}

/// Risk of the original table published as is (see the module doc).
pub fn measure_before(
    ds: &Dataset,
    qi: &[usize],
    sensitive: Option<usize>,
    progress: &Progress,
) -> crate::Result<Before> {
    let members = Partition::by_columns(ds, qi).members();
    let mut original = Release::new("original", ds, qi.to_vec(), sensitive.into_iter().collect());
    for rows in members.iter() {
        let first = rows[0] as usize;
        let cells = qi
            .iter()
            .map(|&c| Cell::Value {
                code: ds.col(c).code(first),
            })
            .collect();
        original.groups.push(EquivalenceGroup {
            rows: rows.to_vec(),
            cells,
        });
    }
    let matching = Matching::new(&original, ds, progress)?;
    let link = risk::linkage_from(&matching, &original);
    let breach = match sensitive {
        Some(s) => {
            let b = risk::breach_from(&matching, &original, ds, s, progress)?;
            Some(Curve::new(b.summary.mean, b.summary.max, &b.cdf))
        }
        None => None,
    };
    Ok(Before {
        reidentification: Curve::new(link.summary.mean, link.summary.max, &link.cdf),
        breach,
    })
}

/// Widen each column to its widest cell among the first rows of (a sample
/// of) the groups: every generalized cell of a group is the same, so this
/// sizes the QI columns exactly without rendering every row.
/// The group of published row `i` and its place in the group, given the
/// published rows before each group.
fn locate(group_starts: &[usize], i: usize) -> Option<(usize, usize)> {
    if i >= group_starts.last().copied().unwrap_or(0) {
        return None;
    }
    let g = group_starts.partition_point(|&s| s <= i) - 1;
    Some((g, i - group_starts[g]))
}

/// What the published table needs from the release alone.
struct TableLayout {
    headers: Vec<String>,
    /// Drawn width per column: the widest of the header and a sample of
    /// rows, capped.
    widths: Vec<u16>,
    group_starts: Vec<usize>,
    index: BucketIndex,
}

impl TableLayout {
    fn new(release: &Release, ds: &Dataset, roles: &[Role]) -> Self {
        let headers = published_headers(release, ds, Some(roles));
        let mut group_starts = Vec::with_capacity(release.groups.len() + 1);
        let mut at = 0;
        for g in &release.groups {
            group_starts.push(at);
            at += g.rows.len();
        }
        group_starts.push(at);
        let index = BucketIndex::new(release);
        let mut widths: Vec<u16> = headers.iter().map(|h| text_width(h)).collect();
        let groups = release.groups.len();
        let step = groups.div_ceil(WIDTH_SAMPLE_GROUPS).max(1);
        for g in (0..groups).step_by(step) {
            if release.groups[g].rows.is_empty() {
                continue;
            }
            let row = published_row_indexed(release, ds, Some(roles), g, 0, &index);
            for (w, cell) in widths.iter_mut().zip(&row) {
                *w = (*w).max(text_width(cell));
            }
        }
        for w in &mut widths {
            *w = (*w).min(MAX_PUBLISHED_WIDTH as u16);
        }
        TableLayout {
            headers,
            widths,
            group_starts,
            index,
        }
    }
}

pub fn text_width(s: &str) -> u16 {
    ratatui::text::Span::raw(s).width().min(u16::MAX as usize) as u16
}

/// Most views the neighbour prefetch keeps: the shown inputs' neighbours
/// and the last few values the user left, so stepping back is instant too.
pub const PREFETCH_ENTRIES: usize = 6;

/// What a run for some inputs gave: the view, or the algorithm's refusal
/// (a refusal is a result: infeasible parameters are refused every time).
pub type Outcome = Result<Box<AnonymizeView>, String>;

/// Speculative runs for the parameter values the user is most likely to
/// pick next (the focused parameter ±1), made while the app is idle in a
/// slot of their own, and a small cache of finished runs keyed by the full
/// [`AnonymizeInputs`]. The runs use the anonymize slot's [`job`], so a
/// cached view is exactly what a fresh run for those inputs would show.
#[derive(Debug)]
pub struct Prefetch {
    /// Off: nothing is prefetched nor cached (benchmarks' cold presses).
    pub enabled: bool,
    /// Finished runs, oldest first.
    entries: Vec<(AnonymizeInputs, Outcome)>,
    /// The running speculative job and the inputs it answers.
    pub running: Option<(JobId, AnonymizeInputs)>,
    /// Inputs still to prefetch, next first.
    pub pending: Vec<AnonymizeInputs>,
}

impl Default for Prefetch {
    fn default() -> Self {
        Prefetch {
            enabled: true,
            entries: Vec::new(),
            running: None,
            pending: Vec::new(),
        }
    }
}

/// The inputs' parts that change only with roles, cells and hierarchies:
/// a cached run for other generations can never be asked for again.
fn generations(i: &AnonymizeInputs) -> (u64, Option<u64>, Option<u64>, Option<u64>) {
    (
        i.roles_generation,
        i.lgb.map(|g| g.cells_generation),
        i.full_domain.map(|f| f.hierarchies_generation),
        i.pk.map(|p| p.hierarchies_generation),
    )
}

impl Prefetch {
    /// The cached outcome for these inputs.
    pub fn get(&self, inputs: &AnonymizeInputs) -> Option<&Outcome> {
        self.entries
            .iter()
            .find(|(i, _)| i == inputs)
            .map(|(_, o)| o)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a speculative job is queued or running.
    pub fn is_busy(&self) -> bool {
        self.running.is_some() || !self.pending.is_empty()
    }

    /// Keep an outcome, dropping the oldest beyond [`PREFETCH_ENTRIES`].
    pub fn insert(&mut self, inputs: AnonymizeInputs, outcome: Outcome) {
        if !self.enabled {
            return;
        }
        self.entries.retain(|(i, _)| *i != inputs);
        self.entries.push((inputs, outcome));
        let over = self.entries.len().saturating_sub(PREFETCH_ENTRIES);
        self.entries.drain(..over);
    }

    /// Free the runs made for other roles, cells or hierarchies than
    /// `current`'s.
    pub fn forget_stale(&mut self, current: &AnonymizeInputs) {
        let now = generations(current);
        self.entries.retain(|(i, _)| generations(i) == now);
    }

    /// Forget every run and every planned one.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.pending.clear();
        self.running = None;
    }

    /// Plan the neighbours of `shown` for the focused parameter: −1, then
    /// +1, within the values the controls allow (k in 1..=`max_k`, l and p
    /// in 1..=`max_lp`), leaving out those already cached.
    pub fn plan(&mut self, shown: &AnonymizeInputs, focused: Param, max_k: u32, max_lp: u32) {
        self.pending.clear();
        if !self.enabled {
            return;
        }
        for by in [-1i64, 1] {
            let mut n = shown.clone();
            let ok = match focused {
                Param::K => {
                    let k = i64::from(n.k) + by;
                    n.k = k.clamp(1, i64::from(max_k)) as u32;
                    k == i64::from(n.k)
                }
                Param::L => match n.l {
                    Some(l) => {
                        let v = i64::from(l) + by;
                        n.l = Some(v.clamp(1, i64::from(max_lp)) as u32);
                        n.l == Some(v as u32) && v >= 1
                    }
                    None => false,
                },
                Param::P => match n.pk.as_mut() {
                    Some(pk) => {
                        let v = i64::from(pk.p) + by;
                        pk.p = v.clamp(1, i64::from(max_lp)) as u32;
                        i64::from(pk.p) == v
                    }
                    None => false,
                },
            };
            if ok && n != *shown && self.get(&n).is_none() {
                self.pending.push(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_of_a_table_is_its_class_sizes_and_value_shares() {
        let ds = Dataset::from_rows(
            &["zip", "disease"],
            &[
                vec!["1", "flu"],
                vec!["1", "flu"],
                vec!["1", "hiv"],
                vec!["2", "flu"],
            ],
        )
        .unwrap();
        let b = measure_before(&ds, &[0], Some(1), &Progress::new()).unwrap();
        // Pr(re-id): 1/3 for the zip-1 class, 1 for the unique.
        assert!((b.reidentification.mean - (3.0 / 3.0 + 1.0) / 4.0).abs() < 1e-9);
        assert_eq!(b.reidentification.max, 1.0);
        // Breach: flu 2/3 twice, hiv 1/3, the unique's flu 1.
        let breach = b.breach.unwrap();
        assert!((breach.mean - (2.0 / 3.0 * 2.0 + 1.0 / 3.0 + 1.0) / 4.0).abs() < 1e-9);
        assert_eq!(breach.series.first(), Some(&(0.0, 0.0)));
        assert_eq!(breach.series.last(), Some(&(1.0, 1.0)));
    }

    #[test]
    fn the_pk_bound_is_reused_while_the_roles_and_p_stay() {
        let session = crate::session::Session::demo().unwrap();
        let (ds, roles) = (&session.dataset, &session.roles);
        let mut s = AnonymizeState::starting_with(Some("pk-enhanced"));
        s.refresh_pk_bound(ds, roles, 0, 2);
        assert_eq!(s.pk_bound, Some(pk_bound(ds, roles, 2)));
        // A cached bound is returned as is: a planted one shows it.
        let planted: Result<PkBound, String> = Err("planted".into());
        s.pk_cache = Some(((0, 2), planted.clone()));
        s.refresh_pk_bound(ds, roles, 0, 2);
        assert_eq!(s.pk_bound, Some(planted));
        // A new p or new roles compute it again.
        s.refresh_pk_bound(ds, roles, 0, 3);
        assert_eq!(s.pk_bound, Some(pk_bound(ds, roles, 3)));
        s.refresh_pk_bound(ds, roles, 1, 3);
        assert_eq!(s.pk_cache.as_ref().map(|c| c.0), Some((1, 3)));
        // Algorithms without p show no bound.
        let mut m = AnonymizeState::starting_with(Some("mondrian"));
        m.refresh_pk_bound(ds, roles, 0, 2);
        assert_eq!(m.pk_bound, None);
    }

    #[test]
    fn before_of_a_table_without_rows_is_empty() {
        let ds = Dataset::from_rows(&["a", "b"], &[]).unwrap();
        let b = measure_before(&ds, &[0], Some(1), &Progress::new()).unwrap();
        assert_eq!(b.reidentification.max, 0.0);
    }
}
