//! Golden figures of the statistics offices' measures on UCI Adult (issue
//! 17): population models at sampling fractions 0.01, 0.1 and 0.5, the
//! journalist's and marketer's risk, individual risk with seeded sampling
//! weights, attribute risks and special uniques, for the 8 QIs and the
//! first 4.
//!
//! Expected values come from `tests/golden/adult_population.py`, written
//! from the models' definitions (nested bisection on Pitman's likelihood,
//! log-gamma hypergeometrics, the SNB model's generating function, sums of
//! the negative binomial series, brute-force MSUs) and run once into
//! `tests/golden/adult_population.json`. The weights column is added to a
//! temporary copy of Adult here by the same seeded generator (splitmix64,
//! seed 17), written out independently in both places.

use std::io::Write;

use anonlab::assess::{assess, Assessment};
use anonlab::data::{CsvOptions, IndividualMethod, Role, Roles};
use anonlab::progress::Progress;
use anonlab::session::Session;
use serde_json::Value;

use crate::common;
use common::{ADULT, ADULT_QI8};

const GOLDEN: &str = include_str!("golden/adult_population.json");

/// Adult, or `None` with a notice — but a failure under `CI=true`, where
/// the data must be there.
fn adult_session() -> Option<Session> {
    if !common::have_adult() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{ADULT} is missing under CI=true"
        );
        return None;
    }
    Some(Session::open(&common::adult_path(), CsvOptions::default()).unwrap())
}

fn with_qis(mut s: Session, qis: &[&str]) -> Session {
    let mut roles = Roles::new(s.dataset.n_cols());
    for q in qis {
        roles.set(s.dataset.column_index(q).unwrap(), Role::QuasiIdentifier);
    }
    s.roles = roles;
    s.attacker.known = qis.iter().map(|q| q.to_string()).collect();
    s.attacker.threshold = 0.2;
    s
}

fn run(s: &Session) -> Assessment {
    assess(s, &Progress::new()).unwrap()
}

fn close(label: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-300),
        "{label}: anonlab {got} vs expected {want} (rel. tolerance {rel})"
    );
}

fn opt(label: &str, got: Option<f64>, want: &Value, rel: f64) {
    match (got, want.as_f64()) {
        (Some(g), Some(w)) => close(label, g, w, rel),
        (None, None) => {}
        (g, _) => panic!("{label}: anonlab {g:?} vs expected {want}"),
    }
}

const QI_SETS: [(&str, usize); 2] = [("qi8", 8), ("qi4", 4)];

#[test]
fn population_models_and_journalist_match_the_independent_computation() {
    let Some(base) = adult_session() else { return };
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    for (name, k) in QI_SETS {
        let g = &golden["qi_sets"][name];
        for f in ["0.01", "0.1", "0.5"] {
            let mut s = with_qis(base.clone(), &ADULT_QI8[..k]);
            s.attacker.population.sampling_fraction = Some(f.parse().unwrap());
            let a = run(&s);
            let p = a.report.population.as_ref().unwrap();
            let want = &g["fractions"][f];
            let label = |m: &str| format!("{name} F={f} {m}");
            assert_eq!(p.population_size, want["population_size"].as_u64().unwrap());
            close(
                &label("sample uniques"),
                p.sample_uniques,
                g["sample_uniques"].as_f64().unwrap(),
                1e-12,
            );
            let u = &p.population_uniques;
            // Pitman and SNB come from Newton–Raphson to ARX's accuracy
            // (|score| ≤ 1e-6); Zayatz is closed-form.
            opt(&label("pitman"), u.pitman, &want["pitman"], 1e-6);
            opt(&label("zayatz"), u.zayatz, &want["zayatz"], 1e-10);
            opt(&label("snb"), u.snb, &want["snb"], 1e-6);
            opt(&label("dankar"), u.dankar, &want["dankar"], 1e-6);
            let model = serde_json::to_value(u.dankar_model).unwrap();
            assert_eq!(&model, &want["dankar_model"], "{}", label("dankar model"));
            let j = &want["journalist"];
            close(
                &label("journalist mean"),
                p.journalist.mean,
                j["mean"].as_f64().unwrap(),
                1e-10,
            );
            close(
                &label("journalist max"),
                p.journalist.max,
                j["max"].as_f64().unwrap(),
                1e-10,
            );
            assert_eq!(
                p.journalist.records_at_max,
                j["records_at_max"].as_u64().unwrap()
            );
            close(
                &label("marketer"),
                p.marketer,
                j["marketer"].as_f64().unwrap(),
                1e-10,
            );
            // One truth: the prosecutor here is the simulator's.
            assert_eq!(p.prosecutor.mean, a.report.risk.mean);
            assert_eq!(p.prosecutor.max, a.report.risk.max);
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014), as the golden script has it.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn individual_risk_with_seeded_weights_matches() {
    if adult_session().is_none() {
        return;
    }
    // A copy of Adult with a weight column; Adult itself is never touched.
    let text = std::fs::read_to_string(common::adult_path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adult_weighted.csv");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            writeln!(out, "{line};weight").unwrap();
        } else {
            let r = (i - 1) as u64;
            let w = 1.0 + (splitmix64(17 + r) >> 11) as f64 / (1u64 << 53) as f64 * 199.0;
            writeln!(out, "{line};{w:.2}").unwrap();
        }
    }
    drop(out);
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    let base = Session::open(&path, CsvOptions::default()).unwrap();
    for (name, k) in QI_SETS {
        for method in [IndividualMethod::Approx, IndividualMethod::Exact] {
            let mut s = with_qis(base.clone(), &ADULT_QI8[..k]);
            s.attacker.population.weights = Some("weight".into());
            s.attacker.population.individual_method = method;
            let a = run(&s);
            let i = a.report.individual_risk.as_ref().unwrap();
            let want = &golden["qi_sets"][name]["individual"][method.name()];
            let label = |m: &str| format!("{name} {} {m}", method.name());
            close(
                &label("mean"),
                i.mean,
                want["mean"].as_f64().unwrap(),
                1e-10,
            );
            close(
                &label("global risk"),
                i.global_risk,
                want["mean"].as_f64().unwrap(),
                1e-10,
            );
            close(&label("max"), i.max, want["max"].as_f64().unwrap(), 1e-10);
            close(
                &label("expected re-identifications"),
                i.expected_reidentifications,
                want["expected_reidentifications"].as_f64().unwrap(),
                1e-10,
            );
            assert_eq!(
                i.records_above_threshold,
                want["records_above_0_2"].as_u64().unwrap(),
                "{}",
                label("above 0.2")
            );
            assert_eq!(i.weights, "weight");
        }
    }
}

#[test]
fn attribute_risks_and_special_uniques_match() {
    let Some(base) = adult_session() else { return };
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    for (name, k) in QI_SETS {
        let g = &golden["qi_sets"][name];
        for fraction in [None, Some(0.1)] {
            let mut s = with_qis(base.clone(), &ADULT_QI8[..k]);
            s.attacker.population.attribute_risks = true;
            s.attacker.population.suda_max_size = Some(4);
            s.attacker.population.sampling_fraction = fraction;
            let a = run(&s);
            let risks = a.report.attribute_risks.as_ref().unwrap();
            let want = g["attribute_risks"].as_object().unwrap();
            assert_eq!(risks.len(), want.len());
            assert_eq!(risks.len(), (1 << k) - 1);
            for r in risks {
                let w = &want[&r.attributes.join(",")];
                let label = format!("{name} {:?}", r.attributes);
                close(
                    &label,
                    r.distinction,
                    w["distinction"].as_f64().unwrap(),
                    1e-12,
                );
                close(
                    &label,
                    r.separation,
                    w["separation"].as_f64().unwrap(),
                    1e-12,
                );
                assert!(
                    (r.uniques - w["uniques"].as_f64().unwrap()).abs() < 1e-15,
                    "{label}"
                );
            }
            // Ranked: sizes ascending, uniques descending within a size.
            for pair in risks.windows(2) {
                let (x, y) = (&pair[0], &pair[1]);
                assert!(
                    x.attributes.len() < y.attributes.len()
                        || (x.attributes.len() == y.attributes.len() && x.uniques >= y.uniques)
                );
            }
            let su = a.report.suda.as_ref().unwrap();
            let ws = &g["suda"];
            assert_eq!(
                su.records_with_msu,
                ws["records_with_msu"].as_u64().unwrap()
            );
            let by_size: Vec<u64> = ws["msu_counts_by_size"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(su.msu_counts_by_size, by_size[..k.min(4)]);
            let key = if fraction.is_some() { "0.1" } else { "0.01" };
            assert_eq!(su.dis_fraction, key.parse::<f64>().unwrap());
            let dis = &ws["dis_suda"][key];
            close(
                "DIS mean",
                su.dis_suda.mean,
                dis["mean"].as_f64().unwrap(),
                1e-10,
            );
            close(
                "DIS max",
                su.dis_suda.max,
                dis["max"].as_f64().unwrap(),
                1e-10,
            );
            for c in &su.attribute_contributions {
                let w = ws["attribute_contributions"][&c.attribute]
                    .as_f64()
                    .unwrap();
                close(&c.attribute, c.contribution, w, 1e-10);
            }
        }
    }
}
