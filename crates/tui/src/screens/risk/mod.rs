//! The Risk screen's component: the three attacks before and after
//! anonymization for the session's attacker, the records above the
//! threshold, and the job measuring the shown release.
//!
//! **Before** is the session's baseline ([`SessionState::baseline`]): the
//! original table published as is, attacked by the session's attacker —
//! the attributes of the picker, which the session holds, with the
//! sensitive cells of the semi-sensitive ones hidden (README, "How
//! semi-sensitive cells are matched"). The same figures are the Anonymize
//! and Compare screens' "before", the exported charts', the report's and
//! `anonlab assess`'s. **After** is the release currently shown on the
//! Anonymize screen, for the same attacker:
//!
//! The three attacks are the core's one after measurement
//! (`assess::After::measure`, whose module doc says what each is): the
//! Anonymize and Compare screens, `anonlab anonymize --json` and `compare
//! --json`, the exported charts and the report read the same figures for
//! the same attacker.
//!
//! Each distribution is kept whole, so a new threshold recounts the
//! records above it without a new job. The records above the threshold are
//! listed most exposed first; at most [`MAX_LISTED`] are kept (records
//! above any threshold are a prefix of that order).

use std::sync::Arc;

use crate::chart::{self, ChartData, ChartExport, Dist};
use crate::jobs::{Job, Update};
use crate::keymap::Action;
use crate::layout;
pub use crate::screens::risk_models::RiskModel;
use crate::search;
use crate::session::{most_exposed, Before, Listed, SessionState};
use crate::shared::{step_series, Out, Screen, SENSITIVE_MARK, THRESHOLDS};
use crate::worker::{JobFn, WorkerMsg};
use anonlab::anonymize::Distribution;
use anonlab::assess::After;
use anonlab::data::Dataset;
use anonlab::release::Release;
use anonlab::session::Attacker;
use ratatui::layout::{Position, Rect};
use ratatui::Frame;

/// One distribution of probabilities as the screen shows it: the
/// distribution itself (its counts above a threshold and at 1 are read off
/// its CDF by `Distribution`'s own methods, as the report and `anonlab
/// assess` read them) and its CDF as a step line.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub dist: Distribution,
    /// The CDF as a step line from 0 to 1: (probability, share at or below).
    pub series: Vec<(f64, f64)>,
}

impl Figures {
    pub fn new(dist: &Distribution) -> Self {
        Figures {
            series: step_series(dist.cdf.iter().map(|p| (p.probability, p.share))),
            dist: dist.clone(),
        }
    }
    /// Every source row (suppressed rows count with probability 0).
    pub fn records(&self) -> usize {
        self.dist.summary.records
    }
    pub fn mean(&self) -> f64 {
        self.dist.summary.mean
    }
    pub fn max(&self) -> f64 {
        self.dist.summary.max
    }
    /// Records whose probability is 1: singled out (re-identification) or
    /// whose sensitive value is certain (breach).
    pub fn certain(&self) -> usize {
        self.dist.certain()
    }
    /// Records whose probability is above `threshold`.
    pub fn above(&self, threshold: f64) -> usize {
        self.dist.above(threshold)
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
    /// The baseline's three attacks.
    pub fn of_baseline(before: &Before) -> Self {
        let b = before.baseline();
        Measures {
            simulator: Figures::new(&b.key_count),
            linkage: Figures::new(&b.linkage),
            breach: b
                .breach
                .as_ref()
                .map(|a| (a.attribute.clone(), Figures::new(&a.distribution))),
        }
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
    /// The measurement itself, with its attacker in names.
    pub after: After,
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

/// Which attack the CDF chart shows, or the attribute combinations by
/// uniqueness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskChart {
    KeyCount,
    Linkage,
    Breach,
    /// The combination of the attacker's attributes singling out the most
    /// records, for each number of attributes (with attribute risks only).
    Combinations,
}

impl RiskChart {
    const ALL: [RiskChart; 4] = [
        RiskChart::KeyCount,
        RiskChart::Linkage,
        RiskChart::Breach,
        RiskChart::Combinations,
    ];

    pub fn title(self) -> &'static str {
        match self {
            RiskChart::KeyCount => "key count",
            RiskChart::Linkage => "linkage",
            RiskChart::Breach => "breach",
            RiskChart::Combinations => "combinations",
        }
    }

    /// This chart's figures among the measures.
    pub fn of(self, m: &Measures) -> Option<&Figures> {
        match self {
            RiskChart::KeyCount => Some(&m.simulator),
            RiskChart::Linkage => Some(&m.linkage),
            RiskChart::Breach => m.breach.as_ref().map(|(_, f)| f),
            RiskChart::Combinations => None,
        }
    }
}

/// The Risk screen's state.
#[derive(Debug)]
pub struct RiskState {
    /// Index into the session's attacker order (the picker).
    pub cursor: usize,
    /// The baseline's three attacks, derived when a baseline arrives.
    pub before: Option<Measures>,
    /// The baseline `before` was derived from.
    before_of: Option<Arc<Before>>,
    pub focus: RiskFocus,
    /// Whether the terminal is short enough for one panel at a time
    /// (`layout::risk_compact`), set with the list's page.
    pub compact: bool,
    /// On a short terminal, whether the figures are shown rather than the
    /// focused panel: they are, until ← or → goes to the picker or the
    /// list.
    pub figures: bool,
    pub list: RecordList,
    /// Index into the shown list.
    pub list_cursor: usize,
    /// Records the list shows at once (set from the terminal size).
    pub list_page: usize,
    pub chart: RiskChart,
    /// The model selector: whose reading of the file the model panel and
    /// the list's extra column show (`risk_models`).
    pub model: RiskModel,
    /// The last finished job on the release.
    pub after: Option<AfterView>,
    pub after_job: Job<Box<AfterView>>,
    /// The release and attacker of the latest job on the release.
    pub after_requested: Option<(Arc<Release>, Vec<usize>)>,
}

/// The Risk screen: its state and the job slot measuring the release.
pub struct RiskScreen {
    pub state: RiskState,
}

impl RiskScreen {
    pub fn new() -> Self {
        RiskScreen {
            state: RiskState {
                cursor: 0,
                before: None,
                before_of: None,
                focus: RiskFocus::Picker,
                compact: false,
                figures: true,
                list: RecordList::Before,
                list_cursor: 0,
                list_page: 1,
                chart: RiskChart::KeyCount,
                model: RiskModel::Prosecutor,
                after: None,
                after_job: Job::inline(),
                after_requested: None,
            },
        }
    }

    pub fn job_mut(&mut self) -> &mut Job<Box<AfterView>> {
        &mut self.state.after_job
    }

    /// Follow the session: the baseline's figures when a new one arrived,
    /// the picker's cursor within its attributes.
    pub fn sync(&mut self, session: &SessionState) {
        let r = &mut self.state;
        r.cursor = r.cursor.min(session.order().len().saturating_sub(1));
        let baseline = session.baseline();
        let same = match (&r.before_of, baseline) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            // A model or chart the new baseline has no figures for falls
            // back to the prosecutor's and the key count.
            if let Some(b) = baseline {
                let sample = &b.assessment.sample;
                r.model = r.model.or_prosecutor(sample);
                if r.chart == RiskChart::Combinations && sample.attribute_risks.is_none() {
                    r.chart = RiskChart::KeyCount;
                }
            }
            r.before = baseline.map(|b| Measures::of_baseline(b));
            r.before_of = baseline.cloned();
            r.clamp_list_cursor(session);
        }
    }

    /// Apply one action of the Risk screen; `shown` is the release on the
    /// Anonymize screen.
    pub fn step(
        &mut self,
        action: &Action,
        session: &mut SessionState,
        shown: Option<&Arc<Release>>,
        out: &mut Out,
    ) {
        let r = &mut self.state;
        let order = session.order().to_vec();
        let last = order.len().saturating_sub(1);
        let listed = r.shown_list(session).0.len();
        let page = r.list_page.max(1);
        let on_list = r.focus == RiskFocus::Records;
        let lc = &mut r.list_cursor;
        match *action {
            // On a short terminal ← and → go through the figures, the
            // picker and the list, one panel at a time.
            Action::Left if r.compact && r.focus == RiskFocus::Picker => r.figures = true,
            Action::Right if r.compact && r.figures => r.figures = false,
            Action::Left => {
                r.focus = RiskFocus::Picker;
                r.figures = false;
            }
            Action::Right => {
                r.focus = RiskFocus::Records;
                r.figures = false;
            }
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
                if let Some(l) = r.shown_list(session).0.get(r.list_cursor) {
                    out.jump = Some(l.row as usize);
                }
            }
            Action::Up => r.cursor = r.cursor.saturating_sub(1),
            Action::Down => r.cursor = (r.cursor + 1).min(last),
            Action::PageUp => r.cursor = r.cursor.saturating_sub(page),
            Action::PageDown => r.cursor = (r.cursor + page).min(last),
            Action::First => r.cursor = 0,
            Action::Last => r.cursor = last,
            // Enter on the picker toggles, as Space does.
            Action::ToggleKnown | Action::JumpToRecord if !on_list => {
                if let Some(&c) = order.get(r.cursor) {
                    session.toggle_known(c);
                }
            }
            Action::ToggleAllKnown => session.toggle_all_known(),
            Action::MoveKnownUp | Action::MoveKnownDown => {
                let up = *action == Action::MoveKnownUp;
                let i = r.cursor;
                let j = if up { i.checked_sub(1) } else { Some(i + 1) };
                if let Some(j) = j.filter(|&j| j < order.len() && i < order.len()) {
                    session.swap_order(i, j);
                    r.cursor = j;
                }
            }
            Action::ThresholdUp | Action::ThresholdDown => {
                let t = session.threshold();
                let next = if *action == Action::ThresholdUp {
                    THRESHOLDS.iter().copied().find(|&x| x > t + 1e-12)
                } else {
                    THRESHOLDS.iter().rev().copied().find(|&x| x < t - 1e-12)
                };
                if let Some(x) = next {
                    session.set_threshold(x);
                    r.clamp_list_cursor(session);
                }
            }
            Action::CycleMeasure(by) => {
                // The combinations chart is offered when the baseline has
                // attribute risks.
                let combinations = session
                    .baseline()
                    .is_some_and(|b| b.assessment.sample.attribute_risks.is_some());
                let offered: Vec<RiskChart> = RiskChart::ALL
                    .into_iter()
                    .filter(|&c| c != RiskChart::Combinations || combinations)
                    .collect();
                let i = offered.iter().position(|&c| c == r.chart).unwrap_or(0);
                let n = offered.len() as i32;
                r.chart = offered[(i as i32 + by).rem_euclid(n) as usize];
            }
            Action::CycleModel => {
                if let Some(b) = session.baseline() {
                    r.model = r.model.cycle(&b.assessment.sample, 1);
                }
            }
            Action::SwitchRecordList => {
                r.list = match r.list {
                    RecordList::Before => RecordList::After,
                    RecordList::After => RecordList::Before,
                };
                r.list_cursor = 0;
                r.focus = RiskFocus::Records;
                r.figures = false;
            }
            Action::Recompute => {
                session.request_baseline(true);
                self.state.after_requested = None;
                self.state.after = None;
                self.request_after(session, shown);
            }
            _ => {}
        }
    }

    /// Queue the attacks on `shown` (the release on the Anonymize screen)
    /// for the session's attacker, unless they are computed or queued
    /// already.
    pub fn request_after(&mut self, session: &SessionState, shown: Option<&Arc<Release>>) {
        let r = &mut self.state;
        let Some(release) = shown else {
            r.after = None;
            return;
        };
        let known = session.known_columns();
        let done = r.after.as_ref().is_some_and(|a| a.is_for(release, &known));
        let queued = r
            .after_requested
            .as_ref()
            .is_some_and(|(q, k)| Arc::ptr_eq(q, release) && *k == known);
        if done || queued {
            return;
        }
        let job = after_job(
            Arc::clone(session.dataset()),
            Arc::clone(release),
            session.attacker(),
            session.threshold(),
        );
        r.after_requested = Some((Arc::clone(release), known));
        r.after_job.submit(job);
    }

    /// Stop the job on the release; whether one was running.
    pub fn cancel(&mut self) -> bool {
        let r = &mut self.state;
        if !r.after_job.cancel() {
            return false;
        }
        r.after_requested = None;
        true
    }

    /// Apply a message of the job on the release; a failure becomes a
    /// popup.
    pub fn on_after(
        &mut self,
        msg: WorkerMsg<Box<AfterView>>,
        session: &SessionState,
        out: &mut Out,
    ) {
        let r = &mut self.state;
        match r.after_job.apply(msg) {
            Some(Update::Done(output)) => {
                r.after = Some(*output);
                r.clamp_list_cursor(session);
            }
            Some(Update::Failed(error)) => out.popup("Risk of the release failed", error),
            _ => {}
        }
    }

    /// Row `r`'s class in the release (its GID, if published) and the
    /// values the list shows for it: the known attributes' values before
    /// (hidden sensitive cells masked), the published cells after. `/`
    /// searches these, so it finds what is drawn.
    pub fn record_values(
        &self,
        session: &SessionState,
        r: usize,
        hidden_mark: &str,
    ) -> (Option<u32>, String) {
        let risk = &self.state;
        let ds = session.dataset();
        let after = risk.after.as_ref();
        match (risk.list, after) {
            (RecordList::After, Some(a)) => {
                let g = a.group_of_row[r];
                let values = g.map_or_else(String::new, |g| {
                    let group = &a.release.groups[g as usize];
                    a.columns
                        .iter()
                        .filter_map(|c| a.release.quasi_identifiers.iter().position(|q| q == c))
                        .map(|pos| {
                            let c = a.release.quasi_identifiers[pos];
                            let col = ds.col(c);
                            if !a.carries[g as usize][pos] {
                                hidden_mark.to_string()
                            } else {
                                group.cells[pos].render(col, col.code(r))
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                });
                (g, values)
            }
            _ => {
                let known = match session.baseline() {
                    Some(_) => session.known_columns(),
                    None => Vec::new(),
                };
                let values = known
                    .iter()
                    .map(|&c| {
                        if session.is_sensitive(r, c) {
                            hidden_mark.to_string()
                        } else {
                            let col = ds.col(c);
                            col.display(col.code(r)).to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                (after.and_then(|a| a.group_of_row[r]), values)
            }
        }
    }
}

impl Default for RiskScreen {
    fn default() -> Self {
        Self::new()
    }
}

impl RiskState {
    /// The shown list: the records above the threshold that were kept,
    /// and how many are above it in all.
    pub fn shown_list<'a>(&'a self, session: &'a SessionState) -> (&'a [Listed], usize) {
        let t = session.threshold();
        let (listed, above) = match self.list {
            RecordList::Before => match (session.baseline(), &self.before) {
                (Some(b), Some(m)) => (&b.listed[..], m.simulator.above(t)),
                _ => (&[][..], 0),
            },
            RecordList::After => match &self.after {
                Some(a) => (&a.listed[..], a.measures.simulator.above(t)),
                None => (&[][..], 0),
            },
        };
        (&listed[..above.min(listed.len())], above)
    }

    fn clamp_list_cursor(&mut self, session: &SessionState) {
        let n = self.shown_list(session).0.len();
        self.list_cursor = self.list_cursor.min(n.saturating_sub(1));
    }
}

/// The job on a release for `attacker` (see the module doc).
pub fn after_job(
    ds: Arc<Dataset>,
    release: Arc<Release>,
    attacker: Attacker,
    threshold: f64,
) -> JobFn<Box<AfterView>> {
    Box::new(move |progress| {
        Ok(Box::new(measure_after(
            &ds, release, &attacker, threshold, progress,
        )?))
    })
}

/// The three attacks on `release` for `attacker`: the core's one after
/// measurement (`assess::After`), which the Anonymize and Compare screens,
/// the CLI and the report read too.
pub fn measure_after(
    ds: &Dataset,
    release: Arc<Release>,
    attacker: &Attacker,
    threshold: f64,
    progress: &anonlab::progress::Progress,
) -> anonlab::Result<AfterView> {
    let after = After::measure(ds, &release, attacker, threshold, progress)?;
    Ok(AfterView::new(after, release))
}

impl AfterView {
    /// The view of one after measurement of `release`.
    pub fn new(after: After, release: Arc<Release>) -> AfterView {
        let breach = after
            .breach
            .as_ref()
            .map(|b| (b.attribute.clone(), Figures::new(&b.distribution)));
        AfterView {
            group_of_row: release.group_of_row(),
            carries: release.carries_qi(),
            listed: most_exposed(&after.matches),
            measures: Measures {
                simulator: Figures::new(&after.key_count),
                linkage: Figures::new(&after.linkage),
                breach,
            },
            matches: after.matches.clone(),
            known: after.known.clone(),
            columns: after.columns.clone(),
            unpublished: after.attacker.not_published.clone(),
            after,
            release,
        }
    }
}

mod draw;

/// The Risk screen's layout heights: the prefix table's rows and the
/// model panel's lines (none without the statistics offices' measures).
pub fn layout_rows(session: &SessionState, state: &RiskState) -> layout::RiskRows {
    let shown = if state.figures {
        layout::RiskPanel::Figures
    } else if state.focus == RiskFocus::Picker {
        layout::RiskPanel::Picker
    } else {
        layout::RiskPanel::List
    };
    let Some(b) = session.baseline() else {
        return layout::RiskRows {
            shown,
            ..Default::default()
        };
    };
    let a = &b.assessment;
    let model = if super::risk_models::has_measures(&a.sample) {
        super::risk_models::MODEL_PANEL_LINES
    } else {
        0
    };
    layout::RiskRows {
        prefix: a.simulation.prefix.len() as u16,
        model,
        shown,
    }
}

impl super::Component for RiskScreen {
    fn step(&mut self, action: &Action, cx: &mut super::Context<'_>, out: &mut Out) {
        RiskScreen::step(self, action, cx.session, cx.shown.as_ref(), out);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &super::View<'_>) {
        draw::draw(frame, area, &super::Drawn { me: self, view });
    }

    fn on_job(&mut self, msg: super::JobMsg, cx: &mut super::Context<'_>, out: &mut Out) {
        if let super::JobMsg::RiskAfter(m) = msg {
            self.on_after(m, cx.session, out);
        }
    }

    /// The records above the threshold (at most MAX_LISTED), matched on
    /// the row number as drawn or plain, and on the values the list shows
    /// for it.
    fn search(&mut self, q: &str, forward: bool, cx: &mut super::Context<'_>) -> String {
        let session = &*cx.session;
        let listed = self.state.shown_list(session).0;
        let found = search::next_match(listed.len(), self.state.list_cursor, forward, |i| {
            let r = listed[i].row as u64 + 1;
            search::contains(&r.to_string(), q)
                || search::contains(&anonlab::format::thousands(r), q)
                || search::contains(
                    &self
                        .record_values(session, r as usize - 1, SENSITIVE_MARK)
                        .1,
                    q,
                )
        });
        match found {
            Some(i) => {
                let row = listed[i].row as usize;
                self.state.list_cursor = i;
                self.state.focus = RiskFocus::Records;
                self.state.figures = false;
                format!("/{q}: record of row {}", row + 1)
            }
            None => format!("'{q}' not found in the records above the threshold"),
        }
    }

    /// A click selects; Enter jumps to the record, as from the keys, so a
    /// click never leaves the screen.
    fn click(&mut self, area: Rect, at: Position, cx: &mut super::Context<'_>) {
        let prefix = layout_rows(cx.session, &self.state);
        let r = &self.state;
        let order = cx.session.order().len();
        let listed = r.shown_list(cx.session).0.len();
        if let Some(i) = layout::risk_picker_at(area, prefix, r.cursor, order, at) {
            self.state.focus = RiskFocus::Picker;
            self.state.cursor = i;
        } else if let Some(i) = layout::risk_record_at(area, prefix, r.list_cursor, listed, at) {
            self.state.focus = RiskFocus::Records;
            self.state.list_cursor = i;
        }
    }

    fn status_jobs(&self) -> Screen {
        Screen::Risk
    }

    fn show(&mut self, cx: &mut super::Context<'_>) {
        self.request_after(cx.session, cx.shown.as_ref());
    }

    /// Both computations the screen shows: the baseline and the attacks
    /// on the release.
    fn cancel(&mut self, session: &mut SessionState) -> bool {
        let a = session.cancel_baseline();
        let b = RiskScreen::cancel(self);
        a || b
    }

    fn chart(&self, session: &SessionState) -> Result<ChartExport, String> {
        let r = &self.state;
        let measures = r.before.as_ref().ok_or(chart::NOT_YET)?;
        let chart = r.chart;
        let label = |f: &Figures, label: &str| Dist::new(label, &f.dist);
        let mut dists = Vec::new();
        if let Some(f) = chart.of(measures) {
            dists.push(label(f, "original"));
        }
        if let Some(after) = &r.after {
            if let Some(f) = chart.of(&after.measures) {
                dists.push(label(
                    f,
                    &format!("published ({})", after.release.algorithm),
                ));
            }
        }
        if chart == RiskChart::Combinations {
            return Err("the combinations chart is drawn on screen only; :export report lists the riskiest combinations".into());
        }
        if dists.is_empty() {
            return Err(format!("no {} to draw", chart.title()));
        }
        let data = match chart {
            RiskChart::Breach => ChartData::Breach(dists),
            RiskChart::KeyCount | RiskChart::Linkage | RiskChart::Combinations => {
                ChartData::Reidentification(dists)
            }
        };
        // The after measurement names its attacker in the baseline's
        // words, with the known attributes the release leaves out.
        let who = match &r.after {
            Some(a) => a.after.attacker.label.clone(),
            None => chart::attacker(session).unwrap_or_default(),
        };
        Ok(ChartExport {
            screen: "risk",
            data,
            attacker: Some(who),
        })
    }
}
