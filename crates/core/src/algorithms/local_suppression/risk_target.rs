//! Local suppression to a target on individual risk instead of k: suppress
//! key cells until every record's re-identification risk — or, with a
//! household column, every household's — is at most a threshold.
//!
//! sdcMicro offers a threshold only in `localSupp(obj, threshold, keyVar)`
//! (R/localSupp.R): one named key is blanked in every record whose
//! individual risk is above the threshold, once, with no check that the
//! risks then fall below it. The SDC Practice Guide (section "Local
//! suppression") and the Handbook on SDC (Hundepool et al. 2012, §3.4 on
//! individual and hierarchical risk) state the aim this module meets
//! instead: no record (no household) above the threshold afterwards, with
//! as few cells as the search finds.
//!
//! **The risk.** A record's risk is sdcMicro's individual risk
//! (`measure_risk`, Benedetti–Franconi, the approximation it uses by
//! default; `risk::individual::class_risk`) with f the records compatible
//! with its published tuple under alpha = 1 (a `*` matches any value, as
//! freqCalc counts after a suppression) and F̂ their sampling weights'
//! sum; without weights F̂ = f and the risk is 1/f. A household's risk is
//! 1 − ∏(1 − rᵢ) over its members (`risk::household`, sdcMicro's
//! `hier_risk`). "At most" is r ≤ threshold, sdcMicro's "above" being
//! r > threshold, up to `risk::individual::ROUNDING` (1e-12).
//!
//! **Records.** Distinct published tuples are taken highest risk first;
//! for each still above the threshold the smallest set of its keys whose
//! suppression brings its risk to the threshold is chosen (every set of
//! one key, then two, …; importance breaks ties, as in the k search), and
//! all its records get it (a record left alone would keep its f and F̂).
//!
//! **Households.** Households above the threshold are taken highest risk
//! first; within one, members highest risk first, each brought to the
//! larger of the risk that would put the household at the threshold given
//! the other members' current risks, 1 − (1 − t)/∏ⱼ≠ᵢ(1 − rⱼ), and its
//! fair share 1 − (1 − t)^(1/size) (so that one member is not suppressed
//! to nothing while the others stay high); it stops at the first member
//! that brings the household to the threshold. Some member is always above
//! its fair share while the household is above t, so every round touches
//! every such household. A household's members may differ in tuple, so
//! units are records here.
//!
//! **Rounds.** Suppressions under alpha = 1 only add compatible records to
//! everyone, which lowers a risk in every regime anonlab meets, but the
//! risk formula is not monotone in (f, F̂) in general; so the search
//! repeats, every risk asked again, until nothing is above the threshold. Each
//! round suppresses at least one cell in every unit still above it, so it
//! ends: a record suppressed on every key is compatible with all n records
//! and has the floor risk r(n, Σw), and a threshold below the floor (of a
//! household of the largest size, with households) is refused before
//! anything is suppressed.
//!
//! Choices: only alpha = 1 (sdcMicro's risk is measured so); no strata and
//! no combs (a risk is a property of the whole file, and the subsets of
//! combs are a k-anonymity notion); no sdcMicro baseline is run (its
//! `localSupp` does not meet a threshold, so its cells are not comparable).

use crate::data::{Dataset, IndividualMethod};
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{Convention, RiskFigures};
use crate::risk::household::{household_risks, households_of};
use crate::risk::individual::{class_risk, sampling_weights, ROUNDING};

use super::index::{Layout, State};
use super::search::cheapest;
use super::{LocalSuppressionOptions, Outcome, RiskTarget};

/// The individual-risk method of a target (sdcMicro's default).
const METHOD: IndividualMethod = IndividualMethod::Approx;

/// The option checks a risk target adds to [`super::check_options`].
pub(super) fn check(
    ds: &Dataset,
    target: &RiskTarget,
    options: &LocalSuppressionOptions,
) -> Result<()> {
    let t = target.threshold;
    if !(t.is_finite() && t > 0.0 && t < 1.0) {
        return Err(Error::invalid(
            Parameter::RiskThreshold,
            format!("risk threshold {t} is not a probability strictly between 0 and 1"),
        ));
    }
    if options.convention != Convention::AnyValue {
        return Err(Error::invalid(
            Parameter::RiskThreshold,
            "a risk threshold counts records as sdcMicro's risk does, a * matching any value: it cannot be combined with '* is a value of its own'",
        ));
    }
    if !options.combs.is_empty() {
        return Err(Error::invalid(
            Parameter::Combs,
            "combs makes subsets of the keys k-anonymous: it applies to a target k, not to a risk threshold",
        ));
    }
    if options.strata.is_some() {
        return Err(Error::invalid(
            Parameter::Strata,
            "a risk threshold is measured over the whole file: strata apply to a target k only",
        ));
    }
    if ds.is_grouped() {
        return Err(Error::invalid(
            Parameter::RiskThreshold,
            "a risk threshold needs one row per record; this is a frequency table",
        ));
    }
    Ok(())
}

/// Refuse a threshold below what suppression can reach: the risk of a
/// record compatible with every record, r(n, Σw), or of the largest
/// household whose members all are. Checked on the weights and
/// households `suppress` read, before anything is suppressed.
fn check_floor(
    n: usize,
    weights: &[f64],
    households: Option<&(Vec<u32>, usize)>,
    t: f64,
) -> Result<()> {
    let floor = class_risk(
        n.min(u32::MAX as usize) as u32,
        weights.iter().sum(),
        METHOD,
    );
    let largest = households.map_or(1, |(of, count)| {
        let mut size = vec![0u32; *count];
        for &h in of {
            size[h as usize] += 1;
        }
        size.into_iter().max().unwrap_or(1)
    });
    let lowest = 1.0 - (1.0 - floor).powi(largest as i32);
    if lowest <= t + ROUNDING {
        return Ok(());
    }
    let what = if households.is_some() {
        format!(
            "a household of {largest} whose members are suppressed on every key has risk {lowest:.6}"
        )
    } else {
        format!("a record suppressed on every key has risk {lowest:.6}")
    };
    Err(Error::invalid(
        Parameter::RiskThreshold,
        format!(
            "risk threshold {t} cannot be met: {what} (its f is all {n} records); raise the threshold"
        ),
    ))
}

/// A unit's risk when its `*`s are `w`.
fn risk(state: &mut State, u: usize, w: u32) -> f64 {
    risk_with_f(state, u, w).1
}

/// A unit's f (records compatible with it) and risk when its `*`s are `w`.
fn risk_with_f(state: &mut State, u: usize, w: u32) -> (u64, f64) {
    let (f, big_f) = state.compatible_weighted(u, w);
    (
        f,
        class_risk(f.min(u64::from(u32::MAX)) as u32, big_f, METHOD),
    )
}

/// The cheapest set of `u`'s free keys that brings its risk to `goal`,
/// or all of them.
fn lower(state: &mut State, u: usize, levels: &[u32], goal: f64) -> u32 {
    let mask = state.masks[u];
    let free = state.layout().full() & !mask;
    cheapest(state, u, levels, |s, set| {
        let (f, r) = risk_with_f(s, u, mask | set);
        (r <= goal).then_some(f)
    })
    .unwrap_or(free)
}

/// Local suppression of `qi` to `target` (module doc); `missing` are the
/// cells missing in the input, per row.
pub(super) fn suppress(
    ds: &Dataset,
    qi: &[usize],
    target: &RiskTarget,
    household: Option<usize>,
    levels: &[u32],
    missing: Vec<u32>,
    progress: &Progress,
) -> Result<Outcome> {
    let n = ds.n_rows();
    // "At most t" up to rounding (`risk::individual::ROUNDING`).
    let t = target.threshold + ROUNDING;
    let weights: Vec<f64> = match target.weights {
        Some(w) => sampling_weights(ds, ds.name(), qi, ds.col(w).name())?,
        None => vec![1.0; n],
    };
    let bits: Vec<u32> = qi.iter().map(|&c| ds.col(c).code_bits()).collect();
    let layout = Layout::new(&bits).ok_or_else(|| Error::Internal("keys too wide".into()))?;
    let codes_of = |r: usize| qi.iter().map(move |&c| ds.col(c).code(r));
    let households = match household {
        Some(h) => Some(households_of(ds, ds.name(), ds.col(h).name())?),
        None => None,
    };
    check_floor(n, &weights, households.as_ref(), target.threshold)?;
    // Units: one per record with households (members differ), else one per
    // distinct input tuple with its records and their weights' sum.
    let mut unit_of: Vec<u32> = Vec::with_capacity(n);
    let mut codes: Vec<u32> = Vec::new();
    let mut masks: Vec<u32> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut sampling: Vec<f64> = Vec::new();
    if households.is_some() {
        for (r, &w) in weights.iter().enumerate() {
            unit_of.push(r as u32);
            codes.extend(codes_of(r));
            masks.push(missing[r]);
            counts.push(1);
            sampling.push(w);
        }
    } else {
        let mut ids: rustc_hash::FxHashMap<(u32, Vec<u32>), u32> = Default::default();
        for (r, &w) in weights.iter().enumerate() {
            let key: Vec<u32> = codes_of(r)
                .enumerate()
                .map(|(a, c)| if missing[r] & (1 << a) != 0 { 0 } else { c })
                .collect();
            let next = masks.len() as u32;
            let id = *ids.entry((missing[r], key)).or_insert_with(|| {
                codes.extend(codes_of(r));
                masks.push(missing[r]);
                counts.push(0);
                sampling.push(0.0);
                next
            });
            counts[id as usize] += 1;
            sampling[id as usize] += w;
            unit_of.push(id);
        }
    }
    let mut state = State::new(layout, codes, masks, counts).with_sampling(sampling);
    let units = state.units();
    // Per unit (= record) its household, and each household's members.
    let members: Option<Vec<Vec<usize>>> = households.as_ref().map(|(of, count)| {
        let mut list = vec![Vec::new(); *count];
        for (u, &h) in of.iter().enumerate() {
            list[h as usize].push(u);
        }
        list
    });
    let unit_risks = |state: &mut State| -> Vec<f64> {
        (0..units)
            .map(|u| {
                let w = state.masks[u];
                risk(state, u, w)
            })
            .collect()
    };
    // Units are records in household mode: each household's risk is
    // `risk::household`'s product over its members' rows.
    let household_risks = |r: &[f64]| -> Vec<f64> {
        let (of, count) = households.as_ref().expect("household mode");
        household_risks(of, r, *count)
    };
    // The figures a unit is judged by: records' or households' risks.
    let judged = |state: &mut State| -> Vec<f64> {
        let r = unit_risks(state);
        match &members {
            Some(_) => household_risks(&r),
            None => r,
        }
    };
    let before = judged(&mut state);
    let mut round = 0u32;
    loop {
        progress.set_phase("local suppression to a risk threshold", round, 0);
        progress.check()?;
        round += 1;
        let r = unit_risks(&mut state);
        let mut progressed = false;
        match &members {
            None => {
                let mut order: Vec<usize> = (0..units).filter(|&u| r[u] > t).collect();
                if order.is_empty() {
                    break;
                }
                order.sort_by(|&a, &b| {
                    r[b].total_cmp(&r[a])
                        .then(state.weights[b].cmp(&state.weights[a]))
                        .then(a.cmp(&b))
                });
                for (i, u) in order.into_iter().enumerate() {
                    if i % 256 == 0 {
                        progress.check()?;
                    }
                    let mask = state.masks[u];
                    if mask == state.layout().full() || risk(&mut state, u, mask) <= t {
                        continue;
                    }
                    let set = lower(&mut state, u, levels, t);
                    state.suppress(u, set);
                    progressed = true;
                }
            }
            Some(list) => {
                let hr = household_risks(&r);
                let mut order: Vec<usize> = (0..list.len()).filter(|&h| hr[h] > t).collect();
                if order.is_empty() {
                    break;
                }
                order.sort_by(|&a, &b| hr[b].total_cmp(&hr[a]).then(a.cmp(&b)));
                for (i, h) in order.into_iter().enumerate() {
                    if i % 256 == 0 {
                        progress.check()?;
                    }
                    progressed |= household_round(&mut state, &list[h], levels, t);
                }
            }
        }
        if !progressed {
            return Err(Error::Internal(
                "local suppression to a risk threshold made no progress above the floor it checked"
                    .into(),
            ));
        }
    }
    let after = judged(&mut state);
    let masks: Vec<u32> = unit_of.iter().map(|&u| state.masks[u as usize]).collect();
    let suppressed = masks
        .iter()
        .zip(&missing)
        .map(|(&mask, &miss)| mask & !miss)
        .collect();
    let max = |x: &[f64]| x.iter().copied().fold(0.0, f64::max);
    let above = |x: &[f64]| x.iter().filter(|&&r| r > t).count() as u64;
    let basis = match target.weights {
        Some(w) => format!(
            "individual risk with sampling weights '{}' ({})",
            ds.col(w).name(),
            METHOD.name()
        ),
        None => "1/f (no sampling weights)".to_string(),
    };
    let (basis, unit) = match household {
        Some(h) => (
            format!(
                "household risk 1 − ∏(1 − rᵢ) over the members of '{}', rᵢ {basis}",
                ds.col(h).name()
            ),
            "households",
        ),
        None => (basis, "records"),
    };
    // Records, not distinct tuples, are counted above the threshold.
    let records_above = |x: &[f64]| -> u64 {
        if members.is_some() {
            above(x)
        } else {
            (0..units)
                .filter(|&u| x[u] > t)
                .map(|u| u64::from(state.weights[u]))
                .sum()
        }
    };
    Ok(Outcome {
        suppressed,
        missing,
        greedy_total: None,
        greedy_stopped: false,
        greedy_won: false,
        risk: Some(RiskFigures {
            threshold: target.threshold,
            basis,
            unit: unit.to_string(),
            max_before: max(&before),
            max_after: max(&after),
            above_before: records_above(&before),
            above_after: records_above(&after),
        }),
    })
}

/// One household above the threshold: its members, highest risk first,
/// each brought to the risk that puts the household at `t` given the
/// others (or to its fair share), until the household is at `t` (module
/// doc). Whether a cell was suppressed.
fn household_round(state: &mut State, members: &[usize], levels: &[u32], t: f64) -> bool {
    let full = state.layout().full();
    let mut r: Vec<(usize, f64)> = members
        .iter()
        .map(|&u| {
            let w = state.masks[u];
            (u, risk(state, u, w))
        })
        .collect();
    let household = |r: &[(usize, f64)]| 1.0 - r.iter().map(|x| 1.0 - x.1).product::<f64>();
    if household(&r) <= t {
        return false;
    }
    r.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let fair = 1.0 - (1.0 - t).powf(1.0 / r.len() as f64);
    let mut progressed = false;
    for i in 0..r.len() {
        let (u, ru) = r[i];
        let others: f64 = r
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, x)| 1.0 - x.1)
            .product();
        let goal = 1.0 - (1.0 - t) / others;
        let goal = if goal.is_finite() && goal >= fair {
            goal
        } else {
            fair
        };
        if ru <= goal || state.masks[u] == full {
            continue;
        }
        let set = lower(state, u, levels, goal);
        state.suppress(u, set);
        progressed = true;
        let w = state.masks[u];
        r[i].1 = risk(state, u, w);
        if household(&r) <= t {
            break;
        }
    }
    progressed
}
