//! The app's side of what every screen shares: the `:` command line, `/`
//! search, mouse clicks, the theme and mouse settings, and the warnings
//! shown on start (config file problems, a changed data file).
//!
//! A child module of `app` so it can reach the app's state while keeping
//! `app/mod.rs` to one field and one dispatch line per feature.

use anonlab::privacy::Model;
use ratatui::layout::{Position, Rect};

use super::{App, Out, Popup, Screen};
use crate::cmdline::{self, Command, Edit, PerturbationParam, PopulationCommand};
use crate::config::Config;
use crate::keymap::{Action, Scope};
use crate::layout;
use crate::theme::Theme;

impl App {
    /// Use a loaded config: its key map, theme and mouse setting. Problems
    /// found in the file (the defaults were used for those entries) show
    /// in a popup.
    pub fn with_config(mut self, config: Config) -> Self {
        self.keymap = config.keymap;
        self.data.semi_key = self.keymap.keys_for(
            Scope::Screen(Screen::Data),
            Action::SetRole(anonlab::data::Role::SemiSensitive),
        );
        self.theme = config.theme;
        self.mouse = config.mouse;
        if !config.problems.is_empty() {
            self = self.with_warning("Config file problems", &config.problems.join("\n"));
        }
        self
    }

    /// The app for a project file, saving back to it. A data file that
    /// changed since the project was saved opens with a popup saying so
    /// ([`Project::data_changed`](anonlab::data::Project::data_changed)), as
    /// the CLI commands warn on stderr.
    /// A project saved from a session over the query engine's frequency
    /// table opens through the table again, its Data screen paging the
    /// file's sample.
    pub fn open_project(path: &std::path::Path) -> anonlab::Result<App> {
        let project = anonlab::data::Project::load(path)?;
        // A data file that is a device is refused before its fingerprint
        // is checked: that would read `/dev/zero` forever (issue 36, 9).
        if let Some(data) = &project.data.path {
            if let Some(why) = super::open::special_file(data) {
                return Err(anonlab::error::Error::input(data, None, None, why));
            }
        }
        let app = if project.data.grouped.is_some() {
            let (session, file) = open_grouped(&project)?;
            App::new(session)?.with_grouped(file)
        } else {
            App::new(anonlab::session::Session::from_project(&project)?)?
        };
        let app = app.with_project_path(path.to_path_buf());
        Ok(match project.data_changed() {
            Some(w) => app.with_warning("Data file changed", &w),
            None => app,
        })
    }

    /// Open with a popup saying `message` (a changed data file, a config
    /// problem). A popup already there (from the project) is kept first.
    pub fn with_warning(mut self, title: &str, message: &str) -> Self {
        self.popup = Some(match self.popup.take() {
            None => Popup::new(title, message),
            Some(p) => Popup {
                title: p.title,
                message: format!("{}\n\n{title}: {message}", p.message),
            },
        });
        self
    }

    pub fn theme(&self) -> Theme {
        self.theme
    }
    /// Whether the terminal should report the mouse.
    pub fn mouse_enabled(&self) -> bool {
        self.mouse
    }
    /// The command or search line being edited: its prompt, text and
    /// cursor cell.
    pub fn editing_line(&self) -> Option<(&'static str, &str, usize)> {
        if let (Some(t), Some(c)) = (self.cmdline.text(), self.cmdline.cursor()) {
            return Some((":", t, c));
        }
        let e = &self.search.editor;
        e.text().zip(e.cursor()).map(|(t, c)| ("/", t, c))
    }
    /// The session's command lines, oldest first.
    pub fn command_history(&self) -> &[String] {
        self.cmdline.history()
    }
    /// The focused panel of a screen with several (see the keymap's
    /// panels): its keys come first in the help overlay.
    pub fn focused_panel(&self) -> Option<&'static str> {
        self.in_view_ref().focused_panel()
    }

    pub(super) fn step_cmdline(&mut self, action: &Action) {
        if *action == Action::Complete {
            if let Some(text) = self.cmdline.text() {
                let ds = self.session.dataset();
                let offers = cmdline::Offers {
                    // The ids `:algo` takes (its parser reads the same list).
                    algorithms: self.session.algorithms().iter().map(|a| a.id).collect(),
                    columns: (0..ds.n_cols()).map(|c| ds.col(c).name()).collect(),
                };
                let (line, matches) = cmdline::complete(text, &offers);
                self.cmdline.set_text(line);
                if !matches.is_empty() {
                    self.notice = Some(matches.join("  "));
                }
            }
            return;
        }
        if let Edit::Submit(line) = self.cmdline.step(action) {
            if let Err(e) = self.parse_command(&line).and_then(|c| self.run_command(c)) {
                self.notice = Some(e);
            }
        }
    }

    /// Run one command of the `:` line; an error is a message for the
    /// status bar naming the bad value.
    pub fn run_command(&mut self, command: Command) -> Result<(), String> {
        let delta =
            |new: u32, old: u32| (i64::from(new) - i64::from(old)).clamp(-1 << 30, 1 << 30) as i32;
        let p = self.session.params().clone();
        let mut out = Out::default();
        match command {
            Command::K(k) => {
                let rows = self.session.dataset().records() as usize;
                if k as usize > rows {
                    return Err(format!(
                        ":k {k} is more than the {} rows of the data",
                        anonlab::format::thousands(rows as u64)
                    ));
                }
                self.anon
                    .step(&Action::AdjustK(delta(k, p.k)), &mut self.session, &mut out);
            }
            Command::L(l) => {
                self.anon
                    .step(&Action::AdjustL(delta(l, p.l)), &mut self.session, &mut out)
            }
            Command::P(x) => {
                self.anon
                    .step(&Action::AdjustP(delta(x, p.p)), &mut self.session, &mut out)
            }
            Command::Seed(seed) => {
                if seed != p.seed {
                    self.session.params_mut().seed = seed;
                    self.anon.request(&self.session);
                }
            }
            Command::Algo(id) => {
                let a = &self.anon.state;
                let Some(i) = a.algorithms.iter().position(|x| x.id == id) else {
                    return Err(format!("algorithm '{id}' is not offered here"));
                };
                let by = i as i64 - a.algorithm as i64;
                if by != 0 {
                    self.anon.step(
                        &Action::CycleAlgorithm(by as i32),
                        &mut self.session,
                        &mut out,
                    );
                }
            }
            Command::Run => self.step(&Action::Recompute),
            Command::Save(path) => {
                if let Some(p) = path {
                    self.project_path = Some(p);
                }
                self.save_project();
            }
            Command::Theme(t) => {
                self.theme = t;
                self.notice = Some(format!("theme {}", t.name()));
            }
            Command::Mouse(on) => {
                self.mouse = on;
                self.notice = Some(format!("mouse {}", if on { "on" } else { "off" }));
            }
            Command::Quit => self.request_quit(),
            Command::Open(Some(path)) => self.request_open(path),
            Command::Open(None) => self.open_picker(),
            Command::Write(path) => self.write_release(path),
            Command::Filter(rule) => {
                self.show(Screen::Data);
                self.data.set_filter(rule, &self.session, &mut out);
            }
            Command::Hierarchies(path) => {
                // A device or a FIFO is refused before it is opened: the
                // file is read on this thread, and `/dev/zero` would hold
                // the keys until the reader's limit (issue 36, item 9).
                if let Some(why) = super::open::special_file(&path) {
                    return Err(format!("{}: {why}", path.display()));
                }
                self.show(Screen::Hierarchies);
                let inputs = self.inputs();
                self.hier.import(
                    &path.display().to_string(),
                    &mut self.session,
                    &inputs,
                    &mut out,
                );
            }
            Command::Help => self.open_help(super::HelpPage::Commands),
            Command::Compare(c) => {
                let entry = self.entry_now();
                self.compare
                    .command(c, entry, &mut self.session, &self.anon.cache, &mut out);
            }
            Command::Sweep => {
                self.show(Screen::Anonymize);
                if !self.anon.sweep.open {
                    self.anon
                        .step(&Action::ToggleSweep, &mut self.session, &mut out);
                }
            }
            Command::Lattice => {
                self.show(Screen::Anonymize);
                if !self.anon.state.lattice.open {
                    self.anon
                        .step(&Action::ToggleLattice, &mut self.session, &mut out);
                }
            }
            Command::Node(node) => {
                if self.session.params().full_domain.node != node {
                    self.session.settings_mut().full_domain.node = node.clone();
                }
                self.notice = Some(match node {
                    Some(l) => format!(
                        "full-domain publishes node {} (:node optimum goes back)",
                        crate::screens::anonymize::levels_text(&l)
                    ),
                    None => "full-domain publishes the optimum".to_string(),
                });
            }
            Command::ExportChart(path) => self.export_chart(path),
            Command::ExportReport(dir, audience) => self.export_report(dir, audience),
            Command::Conditions(path) => {
                if let Some(why) = super::open::special_file(&path) {
                    return Err(format!("{}: {why}", path.display()));
                }
                let n = self
                    .session
                    .load_conditions(path.clone())
                    .map_err(|e| e.to_string())?;
                self.notice = Some(format!(
                    "{n} condition{} read from {} (Construction(D, G), key 3)",
                    if n == 1 { "" } else { "s" },
                    path.display()
                ));
            }
            Command::Population(_)
            | Command::Weights(_)
            | Command::Suda(_)
            | Command::Household(_)
            | Command::RiskyCells(_)
            | Command::AttributeRisks(_) => {
                let notice = self.set_measures(command)?;
                self.notice = Some(notice);
            }
            Command::Model(m, value) => {
                let model = self.set_model(m, value)?;
                self.notice = Some(format!("full-domain model: {m}, {model}"));
            }
            // The stratum column is the algorithm in view's: a
            // perturbation's, or local suppression's (which refuses a QI
            // that a perturbation may stratify by).
            Command::Strata(_) if self.anon.state.choice().needs.numeric => {
                let notice = self.set_perturbation(command)?;
                self.notice = Some(notice);
            }
            Command::Importance(_)
            | Command::Combs(_)
            | Command::MissingMatches(_)
            | Command::Strata(_) => {
                let notice = self.set_local_suppression(command)?;
                self.notice = Some(notice);
            }
            Command::Perturb(_)
            | Command::Aggregation(..)
            | Command::Perturbation(..)
            | Command::Matrix(..) => {
                let notice = self.set_perturbation(command)?;
                self.notice = Some(notice);
            }
        }
        self.apply(out);
        self.follow_session();
        Ok(())
    }

    /// Set full-domain's model and, when given, the one parameter it reads
    /// beside l and p; the model checks the value before the session takes
    /// it, so a bad value is a message and changes nothing.
    fn set_model(&mut self, name: &'static str, value: Option<f64>) -> Result<Model, String> {
        let mut params = self.session.params().clone();
        params.full_domain.model = name.to_string();
        if let Some(v) = value {
            let needs = Model::needs_of(name).unwrap_or_default();
            let slot = if needs.t {
                &mut params.t
            } else if needs.c {
                &mut params.c
            } else if needs.alpha {
                &mut params.full_domain.alpha
            } else if needs.delta {
                &mut params.full_domain.delta
            } else if needs.beta {
                &mut params.full_domain.beta
            } else {
                return Err(format!(
                    "the model '{name}' takes no value here (it reads {}; set them with :l and :p)",
                    match needs.parameters() {
                        p if p.is_empty() => "k only".to_string(),
                        p => p.join(", "),
                    }
                ));
            };
            *slot = v;
        }
        let model = Model::of_project(&params).map_err(|e| e.to_string())?;
        model.check().map_err(|e| e.to_string())?;
        if *self.session.params() != params {
            *self.session.settings_mut() = params;
        }
        Ok(model)
    }

    /// Apply one of local suppression's commands to the session's
    /// settings, resolved against the quasi-identifiers and checked by the
    /// algorithm first (`local_suppression::check`, at k = 1: k is checked
    /// by the run, as it changes), so a bad value is a message and changes
    /// nothing. The notice says what is set.
    fn set_local_suppression(&mut self, command: Command) -> Result<String, String> {
        use anonlab::algorithms::local_suppression;
        let mut ls = self.session.params().local_suppression.clone();
        let name = |c: &Command| match c {
            Command::Importance(_) => ":importance",
            Command::Combs(_) => ":combs",
            Command::MissingMatches(_) => ":missing",
            _ => ":strata",
        };
        let which = name(&command);
        let notice = match command {
            Command::Importance(names) => {
                let notice = if names.is_empty() {
                    "importance: fewest categories = most important (sdcMicro's default)".into()
                } else {
                    format!("importance, most important first: {}", names.join(", "))
                };
                ls.importance = names;
                notice
            }
            Command::Combs(sizes) => {
                let notice = if sizes.is_empty() {
                    "combs off: k-anonymity on all the QIs together".into()
                } else {
                    let s: Vec<String> = sizes.iter().map(u32::to_string).collect();
                    format!("combs {}: every subset of that many QIs first", s.join(","))
                };
                ls.combs = sizes;
                notice
            }
            Command::MissingMatches(c) => {
                ls.missing_matches = (c != Default::default()).then(|| c.short().to_string());
                format!("local suppression: {}", c.describe())
            }
            Command::Strata(col) => {
                let notice = col.as_ref().map_or_else(
                    || "no strata".into(),
                    |c| format!("k within each value of '{c}'"),
                );
                ls.strata = col;
                notice
            }
            other => return Err(format!("{other:?} is not a local-suppression command")),
        };
        let session = self.session.session();
        let qi = session.roles.with(anonlab::data::Role::QuasiIdentifier);
        let said = |e: anonlab::Error| match e {
            anonlab::Error::Invalid { msg, .. } => {
                format!("{which}: {}", anonlab::error::escaped(&msg))
            }
            e => format!("{which}: {e}"),
        };
        let options = session.local_suppression_options(&ls, &qi).map_err(said)?;
        local_suppression::check(&session.dataset, &qi, 1, &options).map_err(said)?;
        if self.session.params().local_suppression != ls {
            self.session.settings_mut().local_suppression = ls;
        }
        Ok(notice)
    }

    /// Apply `:perturb` or `:aggregation` to the session's microaggregation
    /// settings, resolved by the session first (`perturbation_options`: an
    /// unknown column is a message and changes nothing; roles and types
    /// are the algorithm's to refuse when it runs).
    fn set_perturbation(&mut self, command: Command) -> Result<String, String> {
        let mut p = self.session.params().perturbation.clone();
        let notice = match command {
            Command::Perturb(names) => {
                let notice = if names.is_empty() {
                    "no numeric attributes to perturb".to_string()
                } else {
                    format!("microaggregation perturbs {}", names.join(", "))
                };
                p.attributes = names;
                notice
            }
            Command::Aggregation(a, weights) => {
                let notice = format!(
                    "microaggregation: each group's values replaced by their {}{a}{}",
                    if weights.is_some() { "weighted " } else { "" },
                    weights
                        .as_ref()
                        .map_or(String::new(), |w| format!(" by '{w}'"))
                );
                p.aggregation = (a != "mean").then_some(a);
                p.weights = weights;
                notice
            }
            Command::Strata(col) => {
                let notice = col.as_ref().map_or_else(
                    || "perturbation: no strata".into(),
                    |c| format!("perturbation within each value of '{c}'"),
                );
                p.strata = col;
                notice
            }
            Command::Perturbation(which, v) => {
                let slot = match which {
                    PerturbationParam::Pd => &mut p.pd,
                    PerturbationParam::PramAlpha => &mut p.alpha,
                    PerturbationParam::Noise => &mut p.noise,
                    PerturbationParam::NoiseDelta => &mut p.noise_delta,
                    PerturbationParam::SwapP => &mut p.swap_p,
                };
                *slot = Some(v);
                format!("{}: {} = {v}", which.algorithm(), which.name())
            }
            Command::Matrix(col, file) => {
                let notice = match &file {
                    Some(f) => format!("pram: {col}'s transition matrix read from {}", f.display()),
                    None => format!("pram: {col}'s transition matrix drawn from pd and alpha"),
                };
                match file {
                    Some(f) => p.matrices.insert(col, f),
                    None => p.matrices.remove(&col),
                };
                notice
            }
            other => return Err(format!("{other:?} is not a perturbation command")),
        };
        let said = |e: anonlab::Error| match e {
            anonlab::Error::Invalid { msg, .. } => anonlab::error::escaped(&msg),
            e => e.to_string(),
        };
        let session = self.session.session();
        session.perturbation_options(&p).map_err(said)?;
        // A matrix file is read now, so a file that does not fit its
        // attribute is a message here rather than a failed run.
        session.pram_matrices(&p).map_err(said)?;
        if self.session.params().perturbation != p {
            self.session.settings_mut().perturbation = p;
        }
        Ok(notice)
    }

    /// Apply one of the statistics offices' measures' commands to the
    /// session (checked against the data first, so a bad value is a
    /// message, not a failed baseline); the notice says what is set.
    fn set_measures(&mut self, command: Command) -> Result<String, String> {
        use anonlab::risk::population::PopulationModel;
        let rows = self.session.dataset().records();
        let mut p = self.session.population().clone();
        let notice = match command {
            Command::Population(PopulationCommand::Size(n)) => {
                PopulationModel::with_size(rows, n).map_err(|e| format!(":population: {e}"))?;
                p.size = Some(n);
                p.sampling_fraction = None;
                p.table = None;
                format!(
                    "population {} people: M picks the risk model",
                    anonlab::format::thousands(n)
                )
            }
            Command::Population(PopulationCommand::Fraction(f)) => {
                PopulationModel::with_fraction(rows, f).map_err(|e| format!(":population: {e}"))?;
                p.size = None;
                p.sampling_fraction = Some(f);
                p.table = None;
                format!("sampling fraction {f}: M picks the risk model")
            }
            Command::Population(PopulationCommand::Off) => {
                p.size = None;
                p.sampling_fraction = None;
                p.table = None;
                "no population: the file is the population".into()
            }
            Command::Weights(Some((col, method))) => {
                if self.session.dataset().column_index(&col).is_err() {
                    return Err(format!(":weights: no column '{col}' in the data"));
                }
                let notice = format!("weights '{col}' ({} method)", method.name());
                p.weights = Some(col);
                p.individual_method = method;
                notice
            }
            Command::Weights(None) => {
                p.weights = None;
                p.individual_method = Default::default();
                "no sampling weights".into()
            }
            Command::Suda(m) => {
                p.suda_max_size = m;
                m.map_or("no special uniques".into(), |m| {
                    format!("special uniques of up to {m} attributes")
                })
            }
            Command::Household(Some(col)) => {
                if self.session.dataset().column_index(&col).is_err() {
                    return Err(format!(":household: no column '{col}' in the data"));
                }
                let notice = format!("household risk by '{col}': the Risk screen's model panel");
                p.household = Some(col);
                notice
            }
            Command::Household(None) => {
                p.household = None;
                "no household risk".into()
            }
            Command::RiskyCells(rule) => {
                p.risky_cells = rule.map(|(max_size, threshold)| anonlab::data::RiskyCellsRule {
                    max_size,
                    threshold,
                });
                rule.map_or("no risky cells".into(), |(m, t)| {
                    format!("risky cells: up to {m} attributes, at most {t} records a cell")
                })
            }
            Command::AttributeRisks(on) => {
                p.attribute_risks = on;
                if on {
                    "attribute risks on: m shows the combinations chart"
                } else {
                    "attribute risks off"
                }
                .into()
            }
            other => return Err(format!("{other:?} is not one of the measures' commands")),
        };
        self.session.set_population(p);
        Ok(notice)
    }

    pub(super) fn step_search_line(&mut self, action: &Action) {
        if let Edit::Submit(q) = self.search.editor.step(action) {
            if !q.is_empty() {
                self.search.query = Some(q.to_lowercase());
            }
            self.search_next(true);
        }
    }

    /// Move to the next (previous) match of the last search in the
    /// screen's table, wrapping; a notice says where or that nothing
    /// matches.
    pub(super) fn search_next(&mut self, forward: bool) {
        let Some(q) = self.search.query.clone() else {
            self.notice = Some("nothing searched yet: / starts a search".into());
            return;
        };
        let (screen, mut cx) = self.in_view();
        let found = screen.search(&q, forward, &mut cx);
        self.notice = Some(found);
    }

    /// A left click: a tab switches screen; a row of the screen's table or
    /// list selects it (on the Risk screen it also focuses the picker or
    /// the record list it is in). The areas come from the same layout functions the
    /// drawing uses, at the terminal's current size.
    pub(super) fn click(&mut self, column: u16, row: u16) {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let at = Position::new(column, row);
        if let Some(s) = layout::tab_at(area, at) {
            self.show(s);
            return;
        }
        let (screen, mut cx) = self.in_view();
        screen.click(area, at, &mut cx);
    }
}

/// A project saved from a session over the query engine's frequency table,
/// opened through the table again.
#[cfg(feature = "engine")]
pub(super) fn open_grouped(
    project: &anonlab::data::Project,
) -> anonlab::Result<(anonlab::session::Session, anonlab::session::GroupedFile)> {
    anonlab_scale::grouped::open_project(project)
}

/// Without the query engine a grouped project is refused, saying how to
/// read its file whole.
#[cfg(not(feature = "engine"))]
pub(super) fn open_grouped(
    project: &anonlab::data::Project,
) -> anonlab::Result<(anonlab::session::Session, anonlab::session::GroupedFile)> {
    Err(anonlab::session::Session::grouped_refusal(project))
}
