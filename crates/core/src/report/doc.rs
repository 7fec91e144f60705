//! The report as a small document — sections of paragraphs, lists, tables,
//! commands and charts — so the HTML and Markdown writers render the same
//! content and differ only in markup.

use super::plain::{at_most, chance, count, list, odds, percent};
use super::Report;
use crate::data::Role;

pub enum Block {
    Para(String),
    List(Vec<String>),
    Table {
        head: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// A command to copy.
    Code(String),
    /// `Report::charts[i]`.
    Chart(usize),
}

pub struct Section {
    pub title: &'static str,
    pub blocks: Vec<Block>,
}

/// The report's title names the dataset by its file's name without
/// directory or extension ("adult"); the full path is in "The data".
pub fn title(r: &Report) -> String {
    let stem = std::path::Path::new(&r.dataset.file)
        .file_stem()
        .map_or(r.dataset.file.clone(), |s| s.to_string_lossy().into_owned());
    if r.audience.is_internal() {
        format!("Disclosure risk report: {stem}")
    } else {
        format!("Release report: {stem}")
    }
}

fn role_meaning(role: Role) -> &'static str {
    match role {
        Role::Identifier => "names a person directly; never published",
        Role::QuasiIdentifier => {
            "something an outsider may know about a person (age, zip code); published, possibly blurred"
        }
        Role::Sensitive => "what must not be learned about a person",
        Role::SemiSensitive => {
            "some values are sensitive (marked per cell), the others may be known to an outsider"
        }
        Role::Insensitive => "neither; not used by the attack",
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "NO" }.to_string()
}

/// The report's sections; an external report (`Report::audience`) leaves
/// out the attacker, every risk figure, the seed and the commands that
/// reproduce the release (`audience`).
pub fn sections(r: &Report) -> Vec<Section> {
    let internal = r.audience.is_internal();
    let mut out = Vec::new();

    let mut summary = Vec::new();
    if let Some(w) = &r.dataset.data_warning {
        summary.push(Block::Para(format!("Note: {w}.")));
    }
    summary.push(Block::List(r.summary.clone()));
    out.push(Section {
        title: "Summary",
        blocks: summary,
    });

    let mut roles: Vec<Role> = r.dataset.columns.iter().map(|c| c.role).collect();
    roles.sort_by_key(|role| Role::ALL.iter().position(|x| x == role));
    roles.dedup();
    out.push(Section {
        title: "The data",
        blocks: vec![
            Block::Para(format!(
                "{} records from {}, {} attributes. Each attribute has a role:",
                count(r.dataset.rows),
                r.dataset.file,
                r.dataset.columns.len()
            )),
            Block::List(
                roles
                    .iter()
                    .map(|&role| format!("{role}: {}.", role_meaning(role)))
                    .collect(),
            ),
            Block::Table {
                head: [
                    "attribute",
                    "role",
                    "distinct values",
                    "missing",
                    "sensitive cells",
                ]
                .map(String::from)
                .to_vec(),
                rows: r
                    .dataset
                    .columns
                    .iter()
                    .map(|c| {
                        vec![
                            c.name.clone(),
                            c.role.to_string(),
                            count(c.distinct_values),
                            count(c.missing as usize),
                            c.sensitive_cells.map_or(String::new(), count),
                        ]
                    })
                    .collect(),
            },
        ],
    });

    if internal {
        out.push(Section {
        title: "The attacker",
        blocks: vec![Block::Para(format!(
            "We assume an attacker who knows, about the person they look for: {} ({} of the {} attributes an outsider could know). A person counts as at risk when the attacker's chance of picking out their record is above {} (the threshold of this project).{} Every \"before\" figure of this report is for this attacker ({}), as on anonlab's screens and in `anonlab assess`.",
            list(&r.attacker.knows),
            r.attacker.knows.len(),
            r.attacker.of,
            odds(r.attacker.threshold),
            if r.attacker.hidden_cells > 0 {
                format!(
                    " {} cells are marked sensitive: they are assumed unknown to the attacker and not published as such, so they match any value.",
                    count(r.attacker.hidden_cells)
                )
            } else {
                String::new()
            },
            r.risk.before_attacker
        ))],
    });
    }

    let s = &r.release;
    let reads = |p: &str| s.reads.iter().any(|r| r == p);
    let mut settings = vec![vec![
        "method".to_string(),
        format!(
            "{} ({}){}",
            s.algorithm_name,
            s.algorithm,
            if s.algorithm_defaulted {
                " — the project names no method, so this default was used"
            } else {
                ""
            }
        ),
    ]];
    // The parameters the method reads, as it says (`Algorithm::needs`).
    if reads("k") {
        settings.push(vec![
            "k".into(),
            format!(
                "{}: every published group holds at least this many people",
                s.k
            ),
        ]);
    }
    if let Some(l) = s.l {
        settings.push(vec![
            "l".into(),
            format!("{l}: the sensitive value is hidden among at least this many different values"),
        ]);
    }
    if reads("p") {
        settings.push(vec![
            "p".into(),
            format!("{}: every group holds at least this many different values of each sensitive attribute", s.p),
        ]);
    }
    if let Some(fd) = &s.full_domain {
        settings.push(vec![
            "full-domain".into(),
            format!(
                "at most {} of the records withheld; {} by the {} metric; privacy model {}",
                percent(fd.suppression),
                match &fd.node {
                    None => "optimum".to_string(),
                    Some(levels) => format!(
                        "the chosen node [{}] published instead of the optimum",
                        levels
                            .iter()
                            .map(|l| l.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                fd.metric,
                fd.model
            ),
        ]);
    }
    if let Some(c) = &s.conditions {
        settings.push(vec!["conditions".into(), c.clone()]);
    }
    // Applied to every record before the method ran: a published top code
    // reads "this or more".
    for applied in &s.recodings {
        settings.push(vec!["recoded".into(), applied.describe()]);
    }
    if !s.not_published.is_empty() {
        settings.push(vec![
            "not published".into(),
            format!(
                "{}: the method cannot keep their sensitive cells apart, so it leaves them out",
                list(&s.not_published)
            ),
        ]);
    }
    if internal {
        settings.push(vec![
            "seed".into(),
            match s.seed {
                Some(seed) => format!(
                    "{seed}: fixes every random choice, so the same release comes out again"
                ),
                None => {
                    "none: the method makes no random choice, so the same release always comes out"
                        .into()
                }
            },
        ]);
    }
    settings.extend([
        vec!["published groups".into(), count(s.groups)],
        vec![
            "buckets".into(),
            format!(
                "{} (groups of sensitive values published apart from the other attributes)",
                count(s.buckets)
            ),
        ],
        vec!["records withheld".into(), count(s.suppressed_rows)],
        vec!["time".into(), format!("{:.0} ms", s.time_ms)],
        vec![
            "fingerprint".into(),
            format!(
                "{} (SHA-256 of the published files; anonlab shows the same on its Anonymize screen and in `anonlab anonymize --json` for this release)",
                s.fingerprint
            ),
        ],
    ]);
    out.push(Section {
        title: "What was released",
        blocks: vec![Block::Table {
            head: vec!["setting".into(), "value".into()],
            rows: settings,
        }],
    });

    out.push(Section {
        title: "Guarantees, checked independently",
        blocks: vec![
            Block::Para(if r.guarantees_hold {
                "Each promise the method makes was re-checked on the published data by a separate verifier that does not trust the method. All hold.".to_string()
            } else {
                "Each promise the method makes was re-checked on the published data by a separate verifier. Some do NOT hold: this release must not be published.".to_string()
            }),
            Block::Table {
                head: ["promise", "holds", "what the verifier found"]
                    .map(String::from)
                    .to_vec(),
                rows: r
                    .guarantees
                    .iter()
                    .map(|g| vec![g.claim.clone(), yes_no(g.holds), g.detail.clone()])
                    .collect(),
            },
        ],
    });

    if internal {
        risk_sections(r, &mut out);
    }

    if let Some(ls) = &r.release.local_suppression {
        out.push(suppression_section(ls));
    }
    if let Some(p) = &r.release.perturbation {
        out.push(perturbation_section(p, internal));
    }

    if !r.charts.is_empty() {
        out.push(Section {
            title: "Charts",
            blocks: (0..r.charts.len()).map(Block::Chart).collect(),
        });
    }
    usefulness_and_reproduce(r, s, internal, &mut out);
    out
}

/// "Risk before and after" and the sample-based measures (internal only).
fn risk_sections(r: &Report, out: &mut Vec<Section>) {
    let risk = &r.risk;
    let (b, kc, ln) = (&risk.before, &risk.after_key_count, &risk.after_linkage);
    let row = |name: &str, f: &dyn Fn(&super::Exposure) -> String| {
        vec![name.to_string(), f(b), f(kc), f(ln)]
    };
    let mut risk_blocks = vec![
        Block::Para(format!(
            "Before: the original data published as is, attacked by the attacker above ({}); counting the records that share a person's known values and looking for the records that could be theirs give the same figures there. After, for the {}: one attacker counts the records sharing a person's published values, the other holds the person's true values and counts the published records that could be theirs (linkage).",
            risk.before_attacker, risk.after_attacker
        )),
        Block::Table {
            head: ["", "before", "after (published values)", "after (linkage)"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                row("people attacked", &|e| count(e.records)),
                row("people singled out", &|e| count(e.singled_out)),
                row("most exposed person's chance", &|e| odds(e.max)),
                row("average chance", &|e| odds(e.mean)),
                row(&format!("people above {}", odds(risk.threshold)), &|e| {
                    count(e.above_threshold)
                }),
            ],
        },
    ];
    let breach_line = |br: &super::BreachFigures| {
        format!(
            "guessed {}, on average with {}; {} of {} people above {}",
            at_most(br.max),
            chance(br.mean),
            count(br.above_threshold),
            count(br.records),
            odds(risk.threshold)
        )
    };
    match (&risk.breach_before, &risk.breach) {
        (Some(before), Some(after)) => risk_blocks.push(Block::Para(format!(
            "Learning the sensitive value ({}): before, {}; after, {}.",
            after.attribute,
            breach_line(before),
            breach_line(after)
        ))),
        (None, Some(after)) => risk_blocks.push(Block::Para(format!(
            "Learning the sensitive value ({}) from the release: {}.",
            after.attribute,
            breach_line(after)
        ))),
        (Some(before), None) => risk_blocks.push(Block::Para(format!(
            "Learning the sensitive value ({}) from the original data: {}.",
            before.attribute,
            breach_line(before)
        ))),
        (None, None) => {}
    }
    if !risk.prefix.is_empty() {
        risk_blocks.push(Block::Para(
            "The more the attacker knows, the more people stand out (original data):".into(),
        ));
        risk_blocks.push(Block::Table {
            head: ["attacker knows", "groups", "people singled out"]
                .map(String::from)
                .to_vec(),
            rows: risk
                .prefix
                .iter()
                .map(|p| vec![list(&p.attributes), count(p.classes), count(p.uniques)])
                .collect(),
        });
    }
    out.push(Section {
        title: "Risk before and after",
        blocks: risk_blocks,
    });

    out.extend(super::sample::section(r));
}

/// "Usefulness kept" and, internal only, "How to reproduce".
fn usefulness_and_reproduce(
    r: &Report,
    s: &super::ReleaseSettings,
    internal: bool,
    out: &mut Vec<Section>,
) {
    let u = &r.utility;
    let mut utility = vec![
        vec![
            "GCP (share)".into(),
            percent(u.gcp_share),
            "how much each published value is blurred, 0% exact, 100% nothing left".into(),
        ],
        vec![
            "NCP (sum)".into(),
            format!("{:.1}", u.ncp_sum),
            "the same blur summed over all published cells (GCP × cells)".into(),
        ],
        vec![
            "discernibility (C_DM)".into(),
            count(u.discernibility as usize),
            "sum over groups of size²: lower means smaller, more useful groups".into(),
        ],
    ];
    if let Some(avg) = u.average_class_size {
        utility.push(vec![
            "C_AVG".into(),
            format!("{avg:.2}"),
            "average group size over k: 1 is as small as the promise allows".into(),
        ]);
    }
    for (name, q) in [
        ("query error", &u.queries),
        (
            "query error (probabilistic answers)",
            &u.probabilistic_queries,
        ),
    ] {
        if let Some(q) = q {
            utility.push(vec![
                name.into(),
                percent(q.mean_relative_error),
                format!(
                    "average relative error of {} random {} queries (seed {})",
                    count(q.queries_used),
                    q.aggregate,
                    q.seed
                ),
            ]);
        }
    }
    out.push(Section {
        title: "Usefulness kept",
        blocks: vec![Block::Table {
            head: ["measure", "value", "meaning"].map(String::from).to_vec(),
            rows: utility,
        }],
    });

    if !internal {
        return;
    }
    out.push(Section {
        title: "How to reproduce",
        blocks: vec![
            Block::Para(format!(
                "Made by anonlab {} from the project {} (k = {}, l = {}, t = {}, c = {}, {}, {} queries with seed {}). Run again with:",
                r.anonlab_version,
                r.project,
                s.k,
                s.l.map_or("not used".to_string(), |l| l.to_string()),
                s.t,
                s.c,
                s.seed
                    .map_or("no seed".to_string(), |seed| format!("seed {seed}")),
                s.queries,
                s.query_seed
            )),
            Block::Code(r.reproduce.report_command.clone()),
            Block::Para("The release alone, as a CSV file:".into()),
            Block::Code(r.reproduce.anonymize_command.clone()),
        ],
    });
}

/// A perturbation's methods and what the attributes lost (PRAM's
/// matrices among them); the interval risk in the internal report only.
fn perturbation_section(p: &crate::metrics::PerturbationFigures, internal: bool) -> Section {
    let mut perturbed: Vec<String> = p.attributes.clone();
    perturbed.extend(p.categorical.iter().map(|c| c.attribute.clone()));
    let mut blocks = vec![
        Block::Para(format!(
            "The values of {} were perturbed: the published values are not the originals, so the figures below compare the two. The other attributes are published as they are.",
            list(&perturbed)
        )),
        Block::List(p.methods.clone()),
    ];
    if let (true, Some(risk)) = (internal, p.interval_risk) {
        blocks.push(Block::Para(format!(
            "Numeric risk (sdcMicro's interval measure, dRisk): an attacker holding a person's true {} looks for published values within ± {} standard deviations of them; {} of the {} published records ({}) can be found that way.",
            list(&p.attributes),
            p.interval_k,
            count((risk * p.records as f64).round() as usize),
            count(p.records),
            percent(risk)
        )));
    }
    if internal {
        if let Some(r) = &p.rmd {
            blocks.push(Block::Para(format!(
                "Robust Mahalanobis risk (sdcMicro's dRiskRMD, which widens the interval around outlying records): {} of the records at risk by RMDID1, {} by RMDID2 (no other published record close); weighted {:.4} and {:.4}.",
                percent(r.risk1),
                percent(r.risk2),
                r.wrisk1,
                r.wrisk2
            )));
        }
        if let Some(l) = &p.linkage {
            blocks.push(Block::Para(format!(
                "Record linkage: an attacker who holds every true value and takes the nearest published record finds the right one for {} of the records (their own record's rank, 1 to 10 and beyond: {}).",
                percent(l.share),
                l.rank_histogram
                    .iter()
                    .map(|n| count(*n))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    if !p.attributes.is_empty() {
        let mut loss = Vec::new();
        if let Some(e) = p.eigen {
            loss.push(format!("eigenvalues of the covariance {e:.4}"));
        }
        if let Some(m) = &p.moment_loss {
            loss.push(format!(
                "means {} and covariances {} apart (relative){}",
                percent(m.means),
                percent(m.covariances),
                m.correlations
                    .map_or(String::new(), |c| format!(", correlations {c:.4} apart"))
            ));
        }
        if !loss.is_empty() {
            blocks.push(Block::Para(format!(
                "Structure kept (sdcMicro's dUtility): {}.",
                loss.join("; ")
            )));
        }
        blocks.push(Block::Para(match (p.il1s, p.il1s_per_cell) {
            (Some(s), Some(c)) => format!(
                "Information loss IL1s (sdcMicro's, the sum over cells of |original − published| / (√2 · standard deviation)): {s:.4}, {c:.6} per cell.{}",
                p.il1s_records.as_ref().map_or(String::new(), |d| format!(
                    " Per record: median {:.4}, 90th percentile {:.4}, largest {:.4}.",
                    d.median, d.p90, d.max
                ))
            ),
            _ => "Information loss IL1s is undefined: a column whose original values were all equal was changed.".to_string(),
        }));
        blocks.push(Block::Table {
            head: [
                "attribute",
                "mean before",
                "mean after",
                "sd before",
                "sd after",
            ]
            .map(String::from)
            .to_vec(),
            rows: p
                .moments
                .iter()
                .map(|m| {
                    vec![
                        m.attribute.clone(),
                        format!("{:.4}", m.mean_before),
                        format!("{:.4}", m.mean_after),
                        format!("{:.4}", m.sd_before),
                        format!("{:.4}", m.sd_after),
                    ]
                })
                .collect(),
        });
    }
    if !p.categorical.is_empty() {
        blocks.push(Block::Table {
            head: [
                "attribute",
                "cells changed",
                "share",
                "expected by the matrices",
            ]
            .map(String::from)
            .to_vec(),
            rows: p
                .categorical
                .iter()
                .map(|c| {
                    vec![
                        c.attribute.clone(),
                        count(c.changed as usize),
                        percent(c.share),
                        format!("{:.1}", c.expected),
                    ]
                })
                .collect(),
        });
        if let Some(d) = p.contingency_distance {
            blocks.push(Block::Para(format!(
                "Contingency-table distance of the PRAM'd attributes (half the sum of |original − published| cell counts over the records): {d:.6}."
            )));
        }
        for m in &p.matrices {
            blocks.push(Block::Para(format!(
                "Transition matrix of {}{}: row = the true category, column = the published one.",
                m.attribute,
                m.stratum
                    .as_ref()
                    .map_or(String::new(), |s| format!(" in stratum {s}"))
            )));
            let mut head = vec![String::new()];
            head.extend(m.categories.iter().cloned());
            blocks.push(Block::Table {
                head,
                rows: m
                    .categories
                    .iter()
                    .zip(&m.rows)
                    .map(|(c, row)| {
                        let mut r = vec![c.clone()];
                        r.extend(row.iter().map(|v| format!("{v:.4}")));
                        r
                    })
                    .collect(),
            });
        }
    }
    Section {
        title: "Perturbed values",
        blocks,
    }
}

/// A local suppression's cells: what was blanked, per key variable and by
/// household size, the rule a blank follows, and sdcMicro's greedy beside.
fn suppression_section(ls: &crate::release::CellSuppression) -> Section {
    let mut blocks = vec![Block::Para(format!(
        "{} cells of the key variables were blanked (published as *) rather than generalized; a blank counts as: {}. {}",
        count(ls.total as usize),
        ls.convention.describe(),
        match ls.greedy_total {
            Some(g) => format!(
                "sdcMicro's own method (its greedy heuristic) on the same data blanks {}{} cells{}.",
                if ls.greedy_stopped { "more than " } else { "" },
                count(g as usize),
                if ls.method == "search" {
                    ""
                } else {
                    ", fewer than anonlab's search, so its cells were kept"
                }
            ),
            None => String::new(),
        }
    ))];
    blocks.push(Block::Table {
        head: [
            "key variable",
            "cells blanked",
            "missing in the data already",
        ]
        .map(String::from)
        .to_vec(),
        rows: ls
            .suppressed_cells
            .iter()
            .zip(&ls.missing_before)
            .map(|(a, m)| {
                vec![
                    a.attribute.clone(),
                    count(a.cells as usize),
                    count(m.cells as usize),
                ]
            })
            .collect(),
    });
    if let Some(risk) = &ls.risk {
        blocks.push(Block::Para(format!(
            "The target was a risk, not a group size: {} of at most {} ({}). Before, {} {} were above it (the highest {}); after, {} (the highest {}).",
            if risk.unit == "households" { "every household's risk" } else { "every person's risk" },
            risk.threshold,
            risk.basis,
            count(risk.above_before as usize),
            risk.unit,
            chance(risk.max_before),
            count(risk.above_after as usize),
            chance(risk.max_after)
        )));
    }
    if let Some(h) = &ls.households {
        blocks.push(Block::Para(format!(
            "By the size of the household ('{}') the person lives in, as the Handbook on Statistical Disclosure Control asks for hierarchical files:",
            h.column
        )));
        let mut head: Vec<String> = [
            "household size",
            "households",
            "touched",
            "people",
            "touched",
            "cells blanked",
        ]
        .map(String::from)
        .to_vec();
        head.extend(h.by_size.first().map_or_else(Vec::new, |r| {
            r.cells.iter().map(|a| a.attribute.clone()).collect()
        }));
        blocks.push(Block::Table {
            head,
            rows: h
                .by_size
                .iter()
                .map(|r| {
                    let mut row = vec![
                        r.size.to_string(),
                        count(r.households as usize),
                        count(r.households_touched as usize),
                        count(r.records as usize),
                        count(r.records_touched as usize),
                        count(r.total as usize),
                    ];
                    row.extend(r.cells.iter().map(|a| count(a.cells as usize)));
                    row
                })
                .collect(),
        });
    }
    Section {
        title: "Cells suppressed",
        blocks,
    }
}
