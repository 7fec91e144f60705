//! `anonlab compare`: several algorithms and parameter sets on one file,
//! each release verified and measured as `anonymize` does (the preparation
//! of the data and the requests is `anonymize`'s), one row per run.

use std::fmt::Write as _;

use anyhow::{bail, Context};
use clap::Args;
use serde::Serialize;

use anonlab::algorithms;
use anonlab::anonymize::{evaluate, measure_pk, run_algorithm, Evaluation};
use anonlab::assess::{After, AfterAttacker};

use super::anonymize::{
    engine_flag, engine_session, file_roles, prepare, prepare_with, publish_by_engine,
    published_roles, Columns, Prepared,
};
use super::assess::Engine;
use super::thousands;

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub columns: Columns,
    /// Algorithms to compare (default: with --project, the project's
    /// compare set — each entry with its own k, l, p and seed — if it has
    /// one, else mondrian-l,anatomy,cbg).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// One or more k (default 3).
    #[arg(short = 'k', value_delimiter = ',')]
    pub k: Vec<u32>,
    /// One or more l (default 2; algorithms without l run once per k).
    #[arg(short = 'l', value_delimiter = ',')]
    pub l: Vec<u32>,
    #[arg(long)]
    pub json: bool,
    /// Where the file is read, as `anonymize --engine` says: `datafusion`
    /// builds the frequency table once and every run works on it
    /// (algorithms that read every record are shown infeasible, with the
    /// reason); each run's fingerprint is then a publishing pass over the
    /// file, and the query workload is not run. `auto` takes the engine
    /// for a file over 1 GiB when every algorithm runs on a frequency
    /// table.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    #[command(flatten)]
    pub cluster: super::cluster::ClusterClientArgs,
}

/// One line of `compare`.
#[derive(Debug, Serialize)]
pub struct CompareRow {
    pub algorithm: String,
    pub k: u32,
    pub l: Option<u32>,
    /// `release::fingerprint` of the published files.
    pub fingerprint: Option<String>,
    /// Why the combination could not run, if it could not.
    pub infeasible: Option<String>,
    pub evaluation: Option<Evaluation>,
    /// Whose figures the evaluation's `reidentification` and `breach` are:
    /// the attacker of the release (every QI it publishes known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attacker: Option<AfterAttacker>,
    /// The after figures for the session's attacker (`assess::After`),
    /// with the `attacker` object naming them: the table's figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<After>,
    /// The semi-sensitive attributes the release leaves out (every
    /// algorithm that does not read sensitive cells), as the screens say
    /// "not published".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_published: Vec<String>,
    /// The top and bottom codes and roundings every row's data went
    /// through before its algorithm ran, with the cells each changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recodings: Vec<anonlab::data::AppliedRecode>,
}

/// Algorithms `compare` runs when neither --algorithms nor a project's
/// compare set names any.
const DEFAULT_COMPARE: [&str; 3] = ["mondrian-l", "anatomy", "cbg"];

/// One run of `compare`: an algorithm and its parameters.
struct CompareRun {
    algorithm: std::sync::Arc<dyn algorithms::Algorithm>,
    k: u32,
    /// `None` for algorithms without l.
    l: Option<u32>,
    p: u32,
    seed: u64,
}

/// The runs asked for: the project's compare set when --algorithms is
/// not given and the project has one (each entry with its own k, l, p and
/// seed; --seed overrides the seeds, -k and -l are refused since every
/// entry gives its own), else every algorithm × k × l of the flags.
fn compare_runs(a: &CompareArgs, p: &Prepared) -> anyhow::Result<Vec<CompareRun>> {
    let set = &p.session.compare;
    let p_default = a.columns.hierarchy.p.unwrap_or(if p.from_project {
        p.session.params.p
    } else {
        anonlab::data::DEFAULT_P
    });
    if a.algorithms.is_empty() && !set.is_empty() {
        if !a.k.is_empty() || !a.l.is_empty() {
            bail!("-k and -l go with --algorithms: the project's compare set gives each entry its own k and l (leave them out, or name --algorithms)");
        }
        return set
            .iter()
            .map(|e| {
                Ok(CompareRun {
                    algorithm: algorithms::by_id(&e.algorithm)
                        .with_context(|| format!("the project's compare entry {e}"))?,
                    k: e.k,
                    l: e.l,
                    p: e.p.unwrap_or(p_default),
                    seed: a.columns.seed.unwrap_or(e.seed),
                })
            })
            .collect();
    }
    let ids: Vec<String> = if a.algorithms.is_empty() {
        DEFAULT_COMPARE.iter().map(|s| s.to_string()).collect()
    } else {
        a.algorithms.clone()
    };
    let ks = if a.k.is_empty() { vec![3] } else { a.k.clone() };
    let ls = if a.l.is_empty() { vec![2] } else { a.l.clone() };
    let entries = ids.len().saturating_mul(ks.len()).saturating_mul(ls.len());
    if entries > anonlab::data::MAX_COMPARE_ENTRIES {
        bail!(
            "{} algorithms × {} k × {} l make {entries} runs, more than the {} anonlab compares at once",
            ids.len(),
            ks.len(),
            ls.len(),
            anonlab::data::MAX_COMPARE_ENTRIES
        );
    }
    let mut runs = Vec::new();
    for id in &ids {
        let uses_l = algorithms::by_id(id)?.needs().l;
        for &k in &ks {
            let ls: Vec<Option<u32>> = if uses_l {
                ls.iter().map(|&l| Some(l)).collect()
            } else {
                vec![None]
            };
            for l in ls {
                runs.push(CompareRun {
                    algorithm: algorithms::by_id(id)?,
                    k,
                    l,
                    p: p_default,
                    seed: p.seed,
                });
            }
        }
    }
    Ok(runs)
}

/// The algorithms `compare` would run, before the data is read: what
/// decides whether the query engine may read it (a project's compare set
/// is read in memory, so none is named for it).
fn algorithms_named(
    a: &CompareArgs,
) -> anyhow::Result<Vec<std::sync::Arc<dyn algorithms::Algorithm>>> {
    if a.columns.project.is_some() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = if a.algorithms.is_empty() {
        DEFAULT_COMPARE.to_vec()
    } else {
        a.algorithms.iter().map(String::as_str).collect()
    };
    Ok(ids
        .into_iter()
        .map(algorithms::by_id)
        .collect::<anonlab::Result<_>>()?)
}

pub fn run_compare(a: &CompareArgs) -> anyhow::Result<()> {
    let named = algorithms_named(a)?;
    let named: Vec<&dyn algorithms::Algorithm> = named.iter().map(|a| a.as_ref()).collect();
    // With the engine, every run works on the file's frequency table,
    // built once; an algorithm that reads every record is a row saying
    // why (the table refuses it), not an error of the whole comparison.
    let (p, file_columns) = match engine_flag(&a.columns, a.engine, &a.cluster, &named)? {
        Some(_) => {
            let (session, columns) = engine_session(&a.columns, a.engine, &a.cluster)?;
            (prepare_with(&a.columns, Some(session))?, Some(columns))
        }
        None => (prepare(&a.columns)?, None),
    };
    let runs = compare_runs(a, &p)?;
    let ids: Vec<&str> = runs.iter().map(|r| r.algorithm.id()).collect();
    let loaded = p.load_settings(&a.columns, &ids)?;
    let pk = a.columns.pk.load(&ids)?;
    a.columns.local_suppression.check(&ids)?;
    a.columns.numeric.check(&ids)?;
    if a.columns.local_suppression.risk_threshold.is_some() {
        bail!("--risk-threshold is read by anonymize: compare runs each algorithm to its k");
    }
    let inputs = p.inputs(&a.columns)?;
    let ds = &p.session.dataset;
    let roles = published_roles(&p);
    let attacker = p.attacker()?;
    let mut rows = Vec::new();
    for r in &runs {
        let (algo, k, l) = (&r.algorithm, r.k, r.l);
        if algo.needs().l && p.sensitive().is_empty() {
            bail!(
                "{} needs a sensitive attribute: add --sensitive COL",
                algo.id()
            );
        }
        let measure = p.measure(a.columns.queries, r.seed);
        let mut req = p.request(algo.id(), k, l.unwrap_or(1), r.p, r.seed)?;
        loaded.apply(&mut req.options, l.unwrap_or(1))?;
        p.project_hierarchies(&mut req.options);
        pk.apply(&mut req.options, r.p);
        let qi = req.qi.clone();
        a.columns
            .local_suppression
            .apply(&mut req.options, &p.session.dataset, &qi)?;
        a.columns.numeric.apply(
            &mut req.options,
            &p.session.dataset,
            a.columns.local_suppression.strata.as_deref(),
            a.columns.local_suppression.weights.as_deref(),
        )?;
        let label = match l {
            Some(l) => format!("{} k={k} l={l}", algo.id()),
            None => format!("{} k={k}", algo.id()),
        };
        // A refused run is a row of the table; a failed measurement is an error.
        let outcome = super::progress::with_bar(&label, |progress| {
            let (release, ms) = run_algorithm(&**algo, &req, progress)?;
            let eval = evaluate(&release, ds, ms, &measure, progress);
            Ok::<_, anonlab::Error>((release, eval))
        });
        let row = match outcome {
            Ok((release, eval)) => {
                let mut eval = eval?;
                if pk.active {
                    measure_pk(&mut eval, &release, &req)?;
                }
                if !eval.verification.all_hold() {
                    bail!(
                        "{} (k={k}, l={l:?}) failed independent verification:\n{}",
                        algo.id(),
                        eval.verification
                    );
                }
                // The engine's table holds only the columns the runs read:
                // the fingerprint of what the run would publish is a pass
                // over the file (nothing written).
                let fingerprint = match &file_columns {
                    Some(columns) => {
                        let file_roles =
                            file_roles(&roles, &p.session.identifiers_outside, ds, columns);
                        publish_by_engine(&p, &release, &file_roles, None, &inputs, &a.cluster)?.0
                    }
                    None => anonlab::release::fingerprint(&release, ds, Some(&roles)),
                };
                let (after, evaluated_for) =
                    super::anonymize::measure_after(ds, &release, &attacker, &eval)?;
                CompareRow {
                    algorithm: algo.id().into(),
                    k,
                    l,
                    fingerprint: Some(fingerprint),
                    infeasible: None,
                    evaluation: Some(eval),
                    attacker: Some(evaluated_for),
                    after: Some(after),
                    not_published: p.not_published(&release),
                    recodings: p.session.recodings().to_vec(),
                }
            }
            Err(
                e @ (anonlab::Error::Invalid { .. }
                | anonlab::Error::Internal(_)
                | anonlab::Error::Limit(_)
                | anonlab::Error::Unmet { .. }),
            ) => CompareRow {
                algorithm: algo.id().into(),
                k,
                l,
                fingerprint: None,
                infeasible: Some(match e {
                    // The reason bare, as the row's column says it.
                    anonlab::Error::Invalid { msg: why, .. }
                    | anonlab::Error::Internal(why)
                    | anonlab::Error::Limit(why) => why,
                    e => e.message_with(super::remedy, super::flag),
                }),
                evaluation: None,
                attacker: None,
                after: None,
                not_published: Vec::new(),
                recodings: p.session.recodings().to_vec(),
            },
            Err(e) => return Err(e.into()),
        };
        rows.push(row);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", super::recode_args::human(p.session.recodings()));
        print!("{}", compare_table(&rows));
        if file_columns.is_some() && a.columns.queries > 0 {
            println!("query err: not run on the query engine's table, whose rows are combinations (the workload draws records one by one; --engine memory runs it)");
        }
    }
    Ok(())
}

fn compare_table(rows: &[CompareRow]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<11} {:>3} {:>3}  {:>7} {:>7} {:>6} {:>6} {:>6}  {:>12} {:>7} {:>9} {:>8} {:>8} {:>7} {:>7} {:>9}  {:<12}",
        "algorithm", "k", "l", "breach", "max", "≤0.1", "≤0.2", "≤0.3", "C_DM", "C_AVG", "GCP share", "query err", "prob err", "groups", "buckets", "time ms", "release"
    );
    for r in rows {
        let l = r.l.map_or("–".to_string(), |l| l.to_string());
        let Some(e) = &r.evaluation else {
            let _ = writeln!(
                o,
                "{:<11} {:>3} {:>3}  infeasible: {}",
                r.algorithm,
                r.k,
                l,
                r.infeasible.as_deref().unwrap_or("")
            );
            continue;
        };
        // The after figures, for the attacker each row's `after` names.
        let breach = r
            .after
            .as_ref()
            .and_then(|a| a.breach.as_ref())
            .map(|b| &b.distribution);
        let (mean, max, c1, c2, c3) = match breach {
            Some(b) => (
                format!("{:.4}", b.summary.mean),
                format!("{:.4}", b.summary.max),
                format!("{:.3}", b.cdf_at[1].1),
                format!("{:.3}", b.cdf_at[2].1),
                format!("{:.3}", b.cdf_at[3].1),
            ),
            None => ("–".into(), "–".into(), "–".into(), "–".into(), "–".into()),
        };
        let _ = writeln!(
            o,
            "{:<11} {:>3} {:>3}  {:>7} {:>7} {:>6} {:>6} {:>6}  {:>12} {:>7} {:>9.4} {:>8} {:>8} {:>7} {:>7} {:>9.1}  {:<12}",
            r.algorithm,
            r.k,
            l,
            mean,
            max,
            c1,
            c2,
            c3,
            thousands(e.utility.discernibility as usize),
            e.utility
                .average_class_size
                .map_or("–".into(), |v| format!("{v:.3}")),
            e.utility.gcp,
            e.queries
                .as_ref()
                .map_or("–".into(), |q| format!("{:.4}", q.mean_relative_error)),
            e.probabilistic_queries
                .as_ref()
                .map_or("–".into(), |q| format!("{:.4}", q.mean_relative_error)),
            thousands(e.groups),
            thousands(e.buckets),
            e.time_ms,
            r.fingerprint
                .as_deref()
                .map_or("", anonlab::release::short_fingerprint)
        );
    }
    // Perturbation releases: their numeric attributes' figures, which the
    // class-based columns above do not describe.
    let perturbed: Vec<(&CompareRow, &anonlab::metrics::PerturbationFigures)> = rows
        .iter()
        .filter_map(|r| Some((r, r.evaluation.as_ref()?.perturbation.as_ref()?)))
        .collect();
    if !perturbed.is_empty() {
        let _ = writeln!(
            o,
            "\n{:<18} {:>3}  {:<28} {:>8} {:>8} {:>12} {:>10} {:>8}",
            "algorithm", "k", "perturbed", "dRisk", "linked", "IL1s", "IL1s/cell", "changed"
        );
        let percent = |v: Option<f64>| v.map_or("–".into(), |v| format!("{:.2}%", v * 100.0));
        for (r, f) in perturbed {
            let _ = writeln!(
                o,
                "{:<18} {:>3}  {:<28} {:>8} {:>8} {:>12} {:>10} {:>8}",
                r.algorithm,
                r.k,
                f.attributes
                    .iter()
                    .chain(f.categorical.iter().map(|c| &c.attribute))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(","),
                f.interval_risk.map_or("–".into(), |v| format!("{v:.4}")),
                percent(f.linkage.as_ref().map(|l| l.share)),
                f.il1s.map_or("undefined".into(), |v| format!("{v:.4}")),
                f.il1s_per_cell
                    .map_or("undefined".into(), |v| format!("{v:.6}")),
                percent(f.changed_share())
            );
        }
    }
    let measured: Vec<(&CompareRow, &anonlab::metrics::CorrespondenceLoss)> = rows
        .iter()
        .filter_map(|r| Some((r, r.evaluation.as_ref()?.correspondence.as_ref()?)))
        .collect();
    if !measured.is_empty() {
        let _ = writeln!(
            o,
            "\n{:<11} {:>3} {:>3}  {:>7} {:>8} {:>12} {:>12} {:>8} {:>9}",
            "algorithm", "k", "l", "GLP", "max NLP", "RE", "RE bound", "RE/bound", "time ms"
        );
        for (r, c) in measured {
            let _ = writeln!(
                o,
                "{:<11} {:>3} {:>3}  {:>7.4} {:>8.4} {:>12.1} {:>12} {:>8} {:>9.1}",
                r.algorithm,
                r.k,
                r.l.map_or("–".to_string(), |l| l.to_string()),
                c.glp,
                c.nlp_max,
                c.reconstruction_error,
                c.re_lower_bound.map_or("–".into(), |b| format!("{b:.1}")),
                c.re_ratio().map_or("–".into(), |x| format!("{x:.4}")),
                r.evaluation.as_ref().map_or(0.0, |e| e.time_ms)
            );
        }
        let _ = writeln!(
            o,
            "GLP = mean mass a record's bucket puts on sensitive values never seen with its QI values (refining-partition paper, Definition 3); RE = reconstruction error, bound n(1 − 1/ℓ) (Property 8)"
        );
    }
    if rows
        .iter()
        .any(|r| r.evaluation.as_ref().is_some_and(|e| e.pk.is_some()))
    {
        let _ = writeln!(
            o,
            "\n{:<11} {:>3} {:>3}  {:>12} {:>9} {:>12} {:>7} {:>8} {:>8} {:>9}",
            "algorithm",
            "k",
            "p",
            "IL",
            "IL/tuple",
            "C_DM",
            "C_AVG",
            "mean Hom",
            "mean Div",
            "time ms"
        );
        for r in rows {
            let Some((e, m)) = r
                .evaluation
                .as_ref()
                .and_then(|e| e.pk.as_ref().map(|m| (e, m)))
            else {
                continue;
            };
            let _ = writeln!(
                o,
                "{:<11} {:>3} {:>3}  {:>12.1} {:>9.4} {:>12} {:>7} {:>8.4} {:>8.4} {:>9.1}",
                r.algorithm,
                r.k,
                m.p,
                m.information_loss,
                m.information_loss_per_tuple,
                thousands(e.utility.discernibility as usize),
                e.utility
                    .average_class_size
                    .map_or("–".into(), |v| format!("{v:.3}")),
                m.mean_homogeneity,
                m.mean_diversity,
                e.time_ms
            );
        }
        let _ = writeln!(
            o,
            "IL = total information loss (p-sensitive paper, Definitions 9-10); Hom, Div = Definitions 11-12 (0 Hom: every group p-sensitive)"
        );
    }
    if let Some(a) = rows.iter().find_map(|r| r.after.as_ref()) {
        let _ = writeln!(o, "breach, max, ≤p: after, for the {}", a.attacker);
    }
    for r in rows.iter().filter(|r| !r.not_published.is_empty()) {
        let _ = writeln!(
            o,
            "not published by {}: {} (semi-sensitive: it cannot keep their sensitive cells apart)",
            r.algorithm,
            r.not_published.join(", ")
        );
    }
    let _ = writeln!(
        o,
        "breach = mean breach probability of the sensitive attribute (of its sensitive cells for LGB, Lemma 2); ≤p = share of records with breach probability at most p;\nGCP share = mean normalized certainty penalty of the QI cells (0 = exact, 1 = suppressed; the NCP sum per cell); release = the first 12 hex digits of the release's SHA-256 fingerprint (`anonymize --json` has it whole); prob err = the query workload answered by probabilistic counting (LGB paper, 4.2)"
    );
    o
}
