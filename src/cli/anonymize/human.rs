//! `anonymize`'s human-readable output: the evaluation and the after
//! figures, as the terminal shows them.

use super::*;

pub(super) fn human(e: &Evaluation, after: &After, rows: usize, target: Option<&str>) -> String {
    let mut o = String::new();
    let l = e.l.map_or(String::new(), |l| format!(", l = {l}"));
    let k = target.map_or_else(|| format!("k = {}", e.k), str::to_string);
    // The seed the algorithm drew with, or none (`Evaluation::seed`).
    let seed = e
        .seed
        .map_or("no seed (it makes no random choice)".to_string(), |s| {
            format!("seed {s}")
        });
    let _ = writeln!(o, "{}: {k}{l}, {seed} — {:.1} ms", e.algorithm, e.time_ms);
    let _ = writeln!(o, "verified by the independent checker:");
    for c in &e.verification.checks {
        let _ = writeln!(
            o,
            "  {} {}: {}",
            if c.holds { "ok  " } else { "FAIL" },
            c.claim,
            c.detail
        );
    }
    let _ = writeln!(
        o,
        "{} groups, {} buckets, {} of {} rows suppressed",
        thousands(e.groups),
        thousands(e.buckets),
        thousands(e.suppressed),
        thousands(rows)
    );
    // The after figures, for the attacker they name (`assess::After`).
    let _ = writeln!(o, "after ({}):", after.attacker);
    let k = &after.key_count.summary;
    let _ = writeln!(
        o,
        "re-identification (key count): mean {:.4}, max {:.4}, {} above {:.3}",
        k.mean,
        k.max,
        thousands(k.records_above_threshold),
        k.threshold
    );
    let r = &after.linkage.summary;
    let _ = writeln!(
        o,
        "re-identification (linkage): mean {:.4}, max {:.4}, {} above {:.3}",
        r.mean,
        r.max,
        thousands(r.records_above_threshold),
        r.threshold
    );
    if let Some(b) = &after.breach {
        let s = &b.distribution.summary;
        let _ = writeln!(
            o,
            "breach probability: mean {:.4}, max {:.4}, {} above {:.3}",
            s.mean,
            s.max,
            thousands(s.records_above_threshold),
            s.threshold
        );
    }
    if let Some(c) = &after.risky_cells {
        let _ = writeln!(
            o,
            "risky cells (threshold rule, at most {} records, up to {} of {}): {} cells, {} records in at least one",
            c.threshold,
            c.max_size,
            c.key_variables.join(", "),
            thousands(c.total_cells as usize),
            thousands(c.records_in_risky_cells as usize)
        );
    }
    let u = &e.utility;
    let _ = writeln!(
        o,
        "utility: C_DM {}, C_AVG {}, NCP sum {:.1} (GCP share {:.4}: 0 = nothing generalized, 1 = everything suppressed)",
        thousands(u.discernibility as usize),
        u.average_class_size.map_or("–".into(), |v| format!("{v:.3}")),
        u.ncp,
        u.gcp
    );
    if let Some(q) = &e.queries {
        let _ = writeln!(
            o,
            "query workload: {} of {} queries, mean relative error {:.4} (seed {})",
            q.queries_used,
            q.queries_used + q.skipped,
            q.mean_relative_error,
            q.seed
        );
    }
    if let Some(q) = &e.probabilistic_queries {
        let _ = writeln!(
            o,
            "  answered by probabilistic counting per bucket (LGB paper, 4.2): mean relative error {:.4}",
            q.mean_relative_error
        );
    }
    if let Some(m) = &e.pk {
        let _ = writeln!(
            o,
            "p-sensitive measures (p = {}): IL {:.1} ({:.4} per tuple), mean Hom {:.4} ({} groups not p-sensitive), mean Div {:.4}",
            m.p,
            m.information_loss,
            m.information_loss_per_tuple,
            m.mean_homogeneity,
            m.groups_not_p_sensitive,
            m.mean_diversity
        );
    }
    for b in &e.local_breach {
        let s = &b.distribution.summary;
        let _ = writeln!(
            o,
            "breach of the {} sensitive cells of {}: mean {:.4}, max {:.4}, {} above {:.3}",
            thousands(b.cells),
            b.attribute,
            s.mean,
            s.max,
            thousands(s.records_above_threshold),
            s.threshold
        );
    }
    if let Some(c) = &e.correspondence {
        let _ = writeln!(o, "{}", correspondence_line(c));
    }
    o
}

/// GLP and reconstruction error (refining-partition paper) in one line.
pub(super) fn correspondence_line(c: &anonlab::metrics::CorrespondenceLoss) -> String {
    let bound = match (c.re_lower_bound, c.re_ratio()) {
        (Some(b), Some(r)) => {
            format!(" = {r:.4} × the lower bound n(1 − 1/ℓ) = {b:.1} (Property 8)")
        }
        _ => String::new(),
    };
    format!(
        "correspondence loss of {}: GLP {:.4} (Definition 3; {} of {} records lose some, max NLP {:.4}); reconstruction error {:.1}{bound}",
        c.attribute,
        c.glp,
        thousands(c.records_with_loss),
        thousands(c.records),
        c.nlp_max,
        c.reconstruction_error
    )
}

/// A perturbation release's figures (`metrics::perturbation`): the
/// methods, the numeric attributes' interval risk and information loss,
/// the PRAM'd attributes' changed cells and contingency-table distance.
pub(super) fn perturbation(f: &anonlab::metrics::PerturbationFigures) -> String {
    let mut o = String::new();
    for m in &f.methods {
        let _ = writeln!(o, "perturbed: {m}");
    }
    if let Some(risk) = f.interval_risk {
        let _ = writeln!(
            o,
            "numeric risk (attacker holding a record's true {}, matching within ± {} sd): interval measure (sdcMicro dRisk) {risk:.6} of {} records",
            f.attributes.join(", "),
            f.interval_k,
            thousands(f.records)
        );
        let il1s = match (f.il1s, f.il1s_per_cell) {
            (Some(s), Some(c)) => {
                format!("IL1s {s:.6} (sdcMicro's sum over cells; {c:.6} per cell)")
            }
            _ => "IL1s undefined (a constant column changed)".to_string(),
        };
        match (&f.rmd, &f.rmd_unavailable) {
            (Some(r), _) => {
                let _ = writeln!(
                    o,
                    "robust Mahalanobis risk (sdcMicro dRiskRMD): risk1 {:.6}, risk2 {:.6}, wrisk1 {:.6}, wrisk2 {:.6}",
                    r.risk1, r.risk2, r.wrisk1, r.wrisk2
                );
            }
            (None, Some(why)) => {
                let _ = writeln!(o, "robust Mahalanobis risk: not computed ({why})");
            }
            _ => {}
        }
        if let Some(l) = &f.linkage {
            let _ = writeln!(
                o,
                "distance-based record linkage (attacker holding every true value, nearest published record): {:.6} of records linked to their own",
                l.share
            );
        }
        let _ = writeln!(o, "numeric information loss: {il1s}");
        if let Some(d) = &f.il1s_records {
            let _ = writeln!(
                o,
                "  IL1s per record: mean {:.6}, median {:.6}, 90th percentile {:.6}, 99th {:.6}, max {:.6}",
                d.mean, d.median, d.p90, d.p99, d.max
            );
        }
        if let Some(e) = f.eigen {
            let _ = writeln!(
                o,
                "  eigenvalues of the covariance (sdcMicro's eigen): {e:.6}"
            );
        }
        if let Some(m) = &f.moment_loss {
            let _ = writeln!(
                o,
                "  relative difference of means {:.6}, of covariances {:.6}{}",
                m.means,
                m.covariances,
                m.correlations.map_or(String::new(), |c| format!(
                    ", absolute difference of correlations {c:.6}"
                ))
            );
        }
        for m in &f.moments {
            let _ = writeln!(
                o,
                "  {}: mean {:.4} → {:.4}, sd {:.4} → {:.4}",
                m.attribute, m.mean_before, m.mean_after, m.sd_before, m.sd_after
            );
        }
    }
    for c in &f.categorical {
        let _ = writeln!(
            o,
            "PRAM changed {} cells of {} ({:.2}%; the matrices expect {:.1})",
            thousands(c.changed as usize),
            c.attribute,
            c.share * 100.0,
            c.expected
        );
    }
    if let Some(d) = f.contingency_distance {
        let _ = writeln!(
            o,
            "contingency-table distance of the PRAM'd attributes: {d:.6}"
        );
    }
    o
}
