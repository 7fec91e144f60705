//! The hierarchy flags of `anonymize` and `compare`: the hierarchies and
//! search parameters of full-domain generalization, and the conditions file
//! of Construction(D, G). Parsed raw by clap, loaded and validated once
//! ([`HierarchyArgs::load`]), then copied into each request's
//! `algorithms::Options` ([`Loaded::apply`]).
//!
//! Construction(D, G) runs as its own algorithm, `--algorithm construction
//! --conditions G.json`, rather than as a pre-step of another algorithm: its
//! output is already the release the risk tool measures (the paper runs the
//! attack simulation on Construction's result), and a pre-step would need
//! every algorithm to accept already-generalized cells.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use anonlab::algorithms::full_domain::{search, Metric, SearchReport};
use anonlab::algorithms::{Options, Request};
use anonlab::anonymize::{evaluate, Evaluation, Measure};
use anonlab::assess::{After, AfterAttacker};
use anonlab::data::Conditions;
use anonlab::data::Params;
use anonlab::hierarchy::HierarchySet;
use anonlab::privacy::{Model, ModelParams};
use anonlab::release::Release;

#[derive(Debug, Args, Clone, Default)]
pub struct HierarchyArgs {
    /// Generalization hierarchies (full-domain, construction levels): a
    /// directory of '*hierarchy_<column>.csv' ARX files, or 'col=FILE,...'.
    #[arg(long, value_name = "DIR|COL=FILE,...")]
    pub hierarchies: Option<String>,
    /// full-domain: the largest share of rows that may be suppressed, e.g.
    /// 0.02 (default: the project's, else 0).
    #[arg(long, value_name = "SHARE")]
    pub suppression: Option<f64>,
    /// full-domain: the metric the optimum minimizes: loss (Iyengar's, ARX's
    /// default), dm (discernibility) or height (sum of levels) (default: the
    /// project's, else loss).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// full-domain: the privacy model besides k: k, l-distinct, l-entropy,
    /// l-recursive, t-closeness, p-sensitive, alpha-k, delta-disclosure or
    /// beta-likeness (l from -l, c from --c, t from --t, p from --p, and
    /// --alpha, --delta, --beta; on --sensitive) (default: the project's,
    /// else k).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// full-domain: α of (α,k)-anonymity, the largest share of one
    /// sensitive value in a class, in (0, 1] (default: the project's, else
    /// 0.5).
    #[arg(long, value_name = "ALPHA")]
    pub alpha: Option<f64>,
    /// full-domain: δ of δ-disclosure privacy, the largest |ln(q/p)|
    /// (default: the project's, else 1).
    #[arg(long, value_name = "DELTA")]
    pub delta: Option<f64>,
    /// full-domain: β of β-likeness, the largest relative gain (q − p)/p
    /// (default: the project's, else 1).
    #[arg(long, value_name = "BETA")]
    pub beta: Option<f64>,
    /// c of recursive (c,l)-diversity (default: the project's, else 3).
    #[arg(long = "c", value_name = "C")]
    pub c: Option<f64>,
    /// t of t-closeness (default: the project's, else 0.2).
    #[arg(long = "t", value_name = "T")]
    pub t: Option<f64>,
    /// p of p-sensitive k-anonymity (full-domain's p-sensitive model,
    /// pk-enhanced, pk-greedy) (default: the project's, else 2).
    #[arg(short = 'p', long = "p", value_name = "P")]
    pub p: Option<u32>,
    /// full-domain: also list every minimal anonymous node.
    #[arg(long)]
    pub list_minimal: bool,
    /// full-domain: publish this node of the lattice instead of the
    /// optimum, one level per quasi-identifier in column order (e.g.
    /// 1,0,2); classes that fail the model are suppressed, past the
    /// suppression limit if need be (default: the project's, else the
    /// optimum).
    #[arg(long, value_name = "L1,L2,...", value_delimiter = ',')]
    pub node: Option<Vec<usize>>,
    /// Construction(D, G): the conditions file G.json (with --algorithm construction).
    #[arg(long, value_name = "G.json")]
    pub conditions: Option<PathBuf>,
}

/// The flags with their files read and names checked, each setting the
/// flag's value or else the project's (`Params`; a command without a
/// project passes the defaults, which are the flags' documented defaults).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    hierarchies: HierarchySet,
    conditions: Option<Conditions>,
    suppression: f64,
    metric: Metric,
    model: String,
    c: f64,
    t: f64,
    /// p of the p-sensitive model and algorithms.
    pub p: u32,
    alpha: f64,
    delta: f64,
    beta: f64,
    list_minimal: bool,
    node: Option<Vec<usize>>,
}

impl HierarchyArgs {
    /// Read the hierarchy and conditions files and check the names, once
    /// per command. `algorithms` are the ids that will run: flags that none
    /// of them reads are refused rather than silently ignored. Settings the
    /// flags leave out are `params`' (the project's); `conditions` are the
    /// project's conditions, used when `--conditions` is not given.
    pub fn load(
        &self,
        algorithms: &[&str],
        params: &Params,
        conditions: Option<&Conditions>,
    ) -> anyhow::Result<Loaded> {
        let full_domain = algorithms.contains(&"full-domain");
        let construction = algorithms.contains(&"construction");
        if self.conditions.is_some() && !construction {
            bail!("--conditions is read by Construction(D, G) only: add --algorithm construction");
        }
        if construction && self.conditions.is_none() && conditions.is_none() {
            bail!("construction needs conditions of generalization: add --conditions G.json");
        }
        let fd_flags = self.suppression.is_some()
            || self.list_minimal
            || self.model.is_some()
            || self.alpha.is_some()
            || self.delta.is_some()
            || self.beta.is_some()
            || self.node.is_some();
        if !full_domain && fd_flags {
            bail!("--suppression, --model, --alpha, --delta, --beta, --node and --list-minimal are read by --algorithm full-domain only");
        }
        let fd = &params.full_domain;
        let suppression = self.suppression.unwrap_or(fd.suppression);
        if !(0.0..=1.0).contains(&suppression) {
            bail!(
                "--suppression is a share of the rows between 0 and 1 (e.g. 0.02 for 2 %), not {suppression}"
            );
        }
        let model = self.model.clone().unwrap_or_else(|| fd.model.clone());
        let Some(needs) = Model::needs_of(&model) else {
            bail!(
                "unknown --model '{}' (available: {})",
                anonlab::error::shown(&model, 80),
                Model::NAMES.join(", ")
            );
        };
        // The model's own parameters are refused with another model, as
        // the full-domain flags are with another algorithm: the model says
        // what it reads.
        for (given, reads, flag) in [
            (self.alpha.is_some(), needs.alpha, "--alpha"),
            (self.delta.is_some(), needs.delta, "--delta"),
            (self.beta.is_some(), needs.beta, "--beta"),
        ] {
            if given && !reads {
                bail!(
                    "{flag} is not read by the privacy model '{model}' (it reads: {})",
                    match needs.parameters() {
                        p if p.is_empty() => "k only".to_string(),
                        p => p.join(", "),
                    }
                );
            }
        }
        let hierarchies = match &self.hierarchies {
            Some(spec) => HierarchySet::load_spec(spec)?,
            None => HierarchySet::new(),
        };
        let conditions = match &self.conditions {
            Some(f) => Some(Conditions::load(f)?),
            None => conditions.cloned(),
        };
        Ok(Loaded {
            hierarchies,
            conditions,
            suppression,
            metric: self.metric.as_deref().unwrap_or(&fd.metric).parse()?,
            model,
            c: self.c.unwrap_or(params.c),
            t: self.t.unwrap_or(params.t),
            p: self.p.unwrap_or(params.p),
            alpha: self.alpha.unwrap_or(fd.alpha),
            delta: self.delta.unwrap_or(fd.delta),
            beta: self.beta.unwrap_or(fd.beta),
            list_minimal: self.list_minimal,
            node: self.node.clone().or_else(|| fd.node.clone()),
        })
    }
}

impl Loaded {
    /// Copy into a request's options; `l` is the request's l.
    pub fn apply(&self, o: &mut Options, l: u32) -> anyhow::Result<()> {
        o.hierarchies = self.hierarchies.clone();
        o.conditions = self.conditions.clone();
        let fd = &mut o.full_domain;
        fd.suppression = self.suppression;
        fd.metric = self.metric;
        fd.list_minimal = self.list_minimal;
        fd.node = self.node.clone();
        let params = ModelParams {
            l,
            c: self.c,
            t: self.t,
            p: self.p,
            alpha: self.alpha,
            delta: self.delta,
            beta: self.beta,
        };
        fd.model = Model::parse(&self.model, &params)?;
        Ok(())
    }
}

/// Full-domain with its search report: run, measure, and refuse a release
/// that fails the independent verifier (as `anonymize::run_verified`).
pub fn run_full_domain(
    req: &Request<'_>,
    measure: &Measure,
) -> anyhow::Result<(Release, Evaluation, SearchReport)> {
    let (release, report, eval) = super::progress::with_bar("full-domain search", |progress| {
        let start = Instant::now();
        let (release, report) = search(req, progress)?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let eval = evaluate(&release, req.ds, ms, measure, progress)?;
        Ok::<_, anonlab::Error>((release, report, eval))
    })?;
    if !eval.verification.all_hold() {
        bail!(
            "the full-domain release failed independent verification, nothing was written:\n{}",
            eval.verification
        );
    }
    Ok((release, eval, report))
}

/// The search report for people.
pub fn human(r: &SearchReport) -> String {
    let mut o = String::new();
    let node = |levels: &[usize]| -> String {
        let v: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
        format!("[{}]", v.join(", "))
    };
    let _ = writeln!(
        o,
        "full-domain: optimal node {} over ({}), heights {}",
        node(&r.optimum.levels),
        r.attributes.join(", "),
        node(&r.heights)
    );
    let _ = writeln!(
        o,
        "  {} = {}, {} classes, {} rows suppressed (limit {}); {} of {} nodes checked{}",
        r.metric,
        fmt_metric(r.metric, r.optimum.metric),
        r.optimum.classes,
        r.optimum.suppressed_rows,
        r.suppression_limit_rows,
        r.checked,
        r.lattice_size,
        if r.monotone {
            ", monotone: pruned by tagging"
        } else {
            ", not monotone with suppression: no pruning by tagging"
        }
    );
    if let Some(c) = &r.chosen {
        let _ = writeln!(
            o,
            "  published instead: chosen node {}, {} = {}, {} classes, {} rows suppressed ({})",
            node(&c.node.levels),
            r.metric,
            fmt_metric(r.metric, c.node.metric),
            c.node.classes,
            c.node.suppressed_rows,
            if c.within_limit {
                "within the limit"
            } else {
                "above the limit: not anonymous within it"
            }
        );
    }
    if !r.flat.is_empty() {
        let _ = writeln!(
            o,
            "  no hierarchy given for {}: each kept as is or generalized to * (level 0 or 1)",
            r.flat.join(", ")
        );
    }
    if !r.minimal.is_empty() {
        let _ = writeln!(o, "  minimal anonymous nodes ({}):", r.minimal.len());
        for m in &r.minimal {
            let _ = writeln!(
                o,
                "    {}  {} = {}, {} classes, {} suppressed",
                node(&m.levels),
                r.metric,
                fmt_metric(r.metric, m.metric),
                m.classes,
                m.suppressed_rows
            );
        }
    }
    o
}

fn fmt_metric(m: Metric, v: f64) -> String {
    match m {
        Metric::Loss => format!("{v:.6}"),
        Metric::Discernibility | Metric::Height => format!("{v:.0}"),
    }
}

/// What `anonymize --json` prints: the measurements, with the release's
/// fingerprint, the search report under `full_domain` and a local
/// suppression's cells under `local_suppression`.
#[derive(Serialize)]
pub struct AnonymizeJson<'a> {
    #[serde(flatten)]
    pub eval: &'a Evaluation,
    /// Whose figures the evaluation's `reidentification` and `breach`
    /// are: the attacker of the release (every QI it publishes known).
    pub attacker: &'a AfterAttacker,
    /// The after figures for the session's attacker, each beside the
    /// `attacker` object naming them (`assess::After`).
    pub after: &'a After,
    /// `release::fingerprint` of the published files.
    pub fingerprint: &'a str,
    /// The semi-sensitive attributes the release leaves out (an
    /// algorithm that does not read sensitive cells), as the screens
    /// say "not published".
    pub not_published: &'a [String],
    /// The top and bottom codes and roundings applied before the
    /// algorithm ran, each with the cells it changed.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub recodings: &'a [anonlab::data::AppliedRecode],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_domain: Option<&'a SearchReport>,
    /// A local suppression's cells: `suppressed_cells` per attribute
    /// and `total`, the `convention`, and sdcMicro's greedy total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_suppression: Option<&'a anonlab::release::CellSuppression>,
}

impl AnonymizeJson<'_> {
    pub fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}
