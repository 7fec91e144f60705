//! One release as the screens show it: the job that makes and measures it,
//! what is drawn from it (derived on the worker thread), and the one cache
//! of finished runs, keyed by their inputs.
//!
//! The job builds its request with `Session::request_with` on the copy of
//! the session it was given — the request `anonlab anonymize --project`
//! and `anonlab report` make for the saved project — then runs
//! `anonymize::run` (full-domain: its search, for the optimum it reports)
//! and `anonymize::evaluate` without the query workload, the slow part,
//! which a job of its own measures afterwards. Beside the evaluation, on
//! the core it leaves idle, it lays out the published table and computes
//! the release's fingerprint (`release::fingerprint`, SHA-256 of the files
//! `anonymize -o` would write), so a reader can check the screen against a
//! report or a CSV file.
//!
//! [`ReleaseCache`] keeps a few outcomes (views and refusals) by their
//! full [`AnonymizeInputs`]: the user's runs, the neighbour prefetch and
//! the Compare screen's entries all put theirs in it and look there
//! first. Inputs name every generation the run reads, so a cached view is
//! what a fresh run would show.

use std::sync::Arc;

use super::record::{record_detail, RecordDetail};
use crate::session::{AnonymizeInputs, Generations, FULL_DOMAIN};
use crate::shared::{step_series, text_width};
use crate::worker::JobFn;
use anonlab::algorithms::full_domain::{self, SearchReport};
use anonlab::anonymize::{self, Evaluation, Measure};
use anonlab::assess::After;
use anonlab::data::{Dataset, Role};
use anonlab::metrics::{self, QueryReport};
use anonlab::progress::Progress;
use anonlab::release::{
    self as rel, published_headers, published_row_indexed, BucketIndex, Release,
};
use anonlab::risk::{self, LocalRisk};
use anonlab::session::Session;

/// Widest a published column is drawn; longer cells (large sets) are cut.
pub const MAX_PUBLISHED_WIDTH: usize = 28;
/// Groups whose first row is rendered to size the published columns.
const WIDTH_SAMPLE_GROUPS: usize = 2000;

/// What a published cell is beyond its text, for the tables to draw it
/// so: a `*` local suppression made, or a key cell missing in the input
/// (also `*`, and not a suppression).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CellMark {
    #[default]
    Plain,
    Suppressed,
    Missing,
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
    pub fn of(d: &anonymize::Distribution) -> Self {
        Curve {
            mean: d.summary.mean,
            max: d.summary.max,
            series: step_series(d.cdf.iter().map(|p| (p.probability, p.share))),
        }
    }
}

/// One finished anonymization, with everything the screens draw from it
/// derived on the worker thread.
#[derive(Debug, Clone)]
pub struct AnonymizeView {
    pub inputs: AnonymizeInputs,
    pub release: Arc<Release>,
    /// Query error left out (see the module doc); it arrives separately.
    pub evaluation: Evaluation,
    /// `release::fingerprint` of the published files.
    pub fingerprint: String,
    /// Attributes an attacker could know that the release does not
    /// publish (semi-sensitive ones, for algorithms other than LGB).
    pub not_published: Vec<String>,
    /// The linkage attack's curve, from [`after`](Self::after).
    pub reidentification: Curve,
    /// Name of the attribute and its curve after anonymization, from
    /// [`after`](Self::after).
    pub breach: Option<(String, Curve)>,
    /// The after figures for the session's attacker when the job ran
    /// (`AnonymizeInputs` names the attacker's generation, so a new
    /// attacker is a new view).
    pub after: After,
    /// Milliseconds of the whole job: algorithm and measurements.
    pub total_ms: f64,
    /// Milliseconds of each part of the job, in order: the algorithm, the
    /// evaluation (verification, risk, utility; the published table's
    /// layout and the fingerprint beside it) and building the rest of the
    /// view. For the latency benchmark (`benches/tui_live.rs`).
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
    /// The published row of each record of the data file (`u32::MAX`:
    /// suppressed), for the before/after view.
    published_at: Vec<u32>,
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

    /// The published table's row `i` (in published order: group by group).
    pub fn row(&self, ds: &Dataset, i: usize) -> Option<Vec<String>> {
        let (g, member) = locate(&self.group_starts, i)?;
        Some(published_row_indexed(
            &self.release,
            ds,
            Some(self.roles.as_slice()),
            g,
            member,
            &self.index,
        ))
    }

    /// How each cell of published row `i` is marked (parallel to
    /// [`row`](Self::row)): in a local suppression's release
    /// (`Release::suppression`), a suppressed key cell of a record whose
    /// value the input holds is [`CellMark::Suppressed`], one the input
    /// lacks [`CellMark::Missing`] — the split of `suppressed_cells` and
    /// `missing_before`. Every other cell, and every cell of other
    /// releases (whose `*` is a generalization), is plain.
    pub fn marks(&self, ds: &Dataset, i: usize) -> Vec<CellMark> {
        let mut marks = vec![CellMark::Plain; self.headers.len()];
        if self.release.suppression.is_none() {
            return marks;
        }
        let Some((g, member)) = locate(&self.group_starts, i) else {
            return marks;
        };
        let group = &self.release.groups[g];
        let r = group.rows[member] as usize;
        let cells = self.release.quasi_identifiers.iter().zip(&group.cells);
        for ((&c, cell), mark) in cells.zip(&mut marks) {
            if *cell == rel::Cell::Suppressed {
                let col = ds.col(c);
                *mark = if col.is_missing(col.code(r)) {
                    CellMark::Missing
                } else {
                    CellMark::Suppressed
                };
            }
        }
        marks
    }

    /// The published row of record `record` (a row of the data file),
    /// `None` when the release suppresses it.
    pub fn published_index(&self, record: usize) -> Option<usize> {
        self.published_at
            .get(record)
            .filter(|&&i| i != u32::MAX)
            .map(|&i| i as usize)
    }

    /// What the attacker learns about published row `i` (see `record`).
    pub fn detail(&self, ds: &Dataset, i: usize) -> Option<RecordDetail> {
        let (g, member) = locate(&self.group_starts, i)?;
        Some(record_detail(
            &self.release,
            ds,
            &self.index,
            self.local_risk.as_deref(),
            (g, member, i),
        ))
    }

    /// Who the after figures are for, in the words of every surface.
    pub fn attacker(&self) -> String {
        self.after.attacker.label.clone()
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
    checks: &[anonlab::privacy::verify::Check],
    claims: usize,
) -> Vec<CheckLine> {
    let split = checks.len().saturating_sub(claims);
    let (structure, claimed) = checks.split_at(split);
    let line = |c: &anonlab::privacy::verify::Check| CheckLine {
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

/// The job making and measuring the release of `inputs` on `session` (see
/// the module doc).
pub fn job(session: Arc<Session>, inputs: AnonymizeInputs) -> JobFn<Box<AnonymizeView>> {
    Box::new(move |progress| Ok(Box::new(make_view(&session, inputs, progress)?)))
}

/// The work of [`job`], for the callers that add to it (the Compare
/// screen measures IL on top).
pub fn make_view(
    session: &Session,
    inputs: AnonymizeInputs,
    progress: &Progress,
) -> anonlab::Result<AnonymizeView> {
    let start = std::time::Instant::now();
    let mut phases = Vec::with_capacity(3);
    let mut lap = start;
    let mut phase = |name: &'static str| {
        let now = std::time::Instant::now();
        phases.push((name, (now - lap).as_secs_f64() * 1000.0));
        lap = now;
    };
    let ds = &session.dataset;
    let req = request(session, &inputs)?;
    let (release, ms, report) = run_release(session, inputs.algorithm, &req, progress)?;
    phase("algorithm");
    progress.set_phase("verifying and measuring the release", 0, 0);
    let skip_queries = Measure {
        queries: 0,
        query_seed: inputs.seed,
        threshold: session.attacker.threshold,
    };
    let roles = session.roles.as_slice().to_vec();
    // The published table's layout and the fingerprint read the release
    // only: they are built beside the evaluation, on the core it leaves
    // idle.
    let (evaluation, (layout, fingerprint)) = rayon::join(
        || anonymize::evaluate(&release, ds, ms, &skip_queries, progress),
        || {
            (
                TableLayout::new(&release, ds, &roles),
                // A grouped table holds only its grouped columns, one row
                // per combination: the published files are the publishing
                // pass's over the file, and so is their fingerprint.
                if ds.is_grouped() {
                    String::new()
                } else {
                    rel::fingerprint(&release, ds, Some(&roles))
                },
            )
        },
    );
    let mut evaluation = evaluation?;
    // The p-sensitive paper's measures (IL, Div, Hom), as `compare` gives
    // them for these algorithms.
    if session
        .registry
        .get(inputs.algorithm)
        .is_ok_and(|a| a.needs().p)
    {
        anonymize::measure_pk(&mut evaluation, &release, &req)?;
    }
    phase("evaluation");
    // The after figures the screens show: the core's one after
    // measurement for the session's attacker (`assess::After`), as the
    // Risk screen, the CLI and the report have them. The evaluation's
    // linkage and breach are reused when the attacker knows every
    // published QI (the same code made them).
    let attacker = session.attacker()?;
    let after = After::measure_with(
        ds,
        &release,
        &attacker,
        session.attacker.threshold,
        Some(&evaluation),
        progress,
    )?;
    let breach = after
        .breach
        .as_ref()
        .map(|b| (b.attribute.clone(), Curve::of(&b.distribution)));
    let reidentification = Curve::of(&after.linkage);
    // Per-cell breach probabilities for the record detail: the evaluation
    // keeps only their distribution.
    let local_risk = if release.local_buckets.is_empty() {
        None
    } else {
        Some(Arc::new(risk::local_risk(&release, ds, progress)?))
    };
    let checks = verification_lines(&evaluation.verification.checks, release.claims.len());
    let not_published = session
        .roles
        .attacker_visible()
        .into_iter()
        .filter(|c| !release.quasi_identifiers.contains(c))
        .map(|c| ds.col(c).name().to_string())
        .collect();
    let mut view = AnonymizeView {
        inputs,
        release: Arc::new(release),
        evaluation,
        fingerprint,
        not_published,
        reidentification,
        breach,
        after,
        total_ms: 0.0,
        phases: Vec::new(),
        full_domain: report,
        checks,
        widths: layout.widths,
        headers: layout.headers,
        roles,
        group_starts: layout.group_starts,
        published_at: layout.published_at,
        index: layout.index,
        local_risk,
    };
    phase("view");
    view.phases = phases;
    view.total_ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(view)
}

/// The request of `inputs` on `session`: the session's own
/// (`Session::request_with`), at the inputs' k, l, p and seed.
pub fn request<'a>(
    session: &'a Session,
    inputs: &AnonymizeInputs,
) -> anonlab::Result<anonlab::algorithms::Request<'a>> {
    let p = &session.params;
    session.request_with(
        inputs.algorithm,
        inputs.k,
        inputs.l.unwrap_or(p.l),
        inputs.p.unwrap_or(p.p),
        inputs.seed,
    )
}

/// Run `algorithm` on the request: the release, the algorithm's
/// milliseconds and, for full-domain, its search report (the optimal
/// levels are not part of the release, so its search is run directly; its
/// release is the one `anonymize::run` gives).
pub fn run_release(
    session: &Session,
    algorithm: &str,
    req: &anonlab::algorithms::Request<'_>,
    progress: &Progress,
) -> anonlab::Result<(Release, f64, Option<SearchReport>)> {
    if algorithm == FULL_DOMAIN {
        let t = std::time::Instant::now();
        let (release, report) = full_domain::search(req, progress)?;
        Ok((release, t.elapsed().as_secs_f64() * 1000.0, Some(report)))
    } else {
        let algo = session.registry.get(algorithm)?;
        let (release, ms) = anonymize::run_algorithm(&*algo, req, progress)?;
        Ok((release, ms, None))
    }
}

/// The query error of one release.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOutcome {
    /// `None` without a sensitive attribute to aggregate.
    pub report: Option<QueryReport>,
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
    published_at: Vec<u32>,
    index: BucketIndex,
}

impl TableLayout {
    /// Widen each column to its widest cell among the first rows of (a
    /// sample of) the groups: every generalized cell of a group is the
    /// same, so this sizes the QI columns exactly without rendering every
    /// row.
    fn new(release: &Release, ds: &Dataset, roles: &[Role]) -> Self {
        let headers = published_headers(release, ds, Some(roles));
        let mut group_starts = Vec::with_capacity(release.groups.len() + 1);
        let mut published_at = vec![u32::MAX; ds.n_rows()];
        let mut at = 0;
        for g in &release.groups {
            group_starts.push(at);
            for (m, &r) in g.rows.iter().enumerate() {
                if let Some(slot) = published_at.get_mut(r as usize) {
                    *slot = (at + m) as u32;
                }
            }
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
            published_at,
            index,
        }
    }
}

/// Most outcomes the cache keeps: the shown inputs' neighbours, the last
/// few values the user left (so stepping back is instant too) and the
/// compare set's entries.
pub const CACHE_ENTRIES: usize = 8;

/// What a run for some inputs gave: the view, or the algorithm's refusal
/// (a refusal is a result: infeasible parameters are refused every time).
pub type Outcome = Result<Box<AnonymizeView>, String>;

/// The one cache of finished runs, keyed by their full inputs (see the
/// module doc).
#[derive(Debug)]
pub struct ReleaseCache {
    /// Off: nothing is kept (benchmarks' cold presses).
    pub enabled: bool,
    /// Finished runs, oldest first.
    entries: Vec<(AnonymizeInputs, Outcome)>,
}

impl Default for ReleaseCache {
    fn default() -> Self {
        ReleaseCache {
            enabled: true,
            entries: Vec::new(),
        }
    }
}

impl ReleaseCache {
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

    /// Keep an outcome, dropping the oldest beyond [`CACHE_ENTRIES`].
    pub fn insert(&mut self, inputs: AnonymizeInputs, outcome: Outcome) {
        if !self.enabled {
            return;
        }
        self.entries.retain(|(i, _)| *i != inputs);
        self.entries.push((inputs, outcome));
        let over = self.entries.len().saturating_sub(CACHE_ENTRIES);
        self.entries.drain(..over);
    }

    /// Free the runs made for other roles, cells, hierarchies or settings
    /// than the session's now (`generations`): they can never be asked
    /// for again.
    pub fn forget_stale(&mut self, g: &Generations) {
        self.entries.retain(|(i, _)| {
            let r = &i.reads;
            r.roles == g.roles
                && r.cells.is_none_or(|c| c == g.cells)
                && r.hierarchies.is_none_or(|h| h == g.hierarchies)
                && r.settings.is_none_or(|s| s == g.settings)
        });
    }

    /// Forget every run.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
