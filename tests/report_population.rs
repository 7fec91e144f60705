//! The report's part for the statistics offices' measures: when
//! the project gives a population, asks for special uniques and attribute
//! risks, the report carries the figures `assess` computes for the same
//! attacker (one truth), states the population-based risk in plain words
//! naming the model and its parameters, and lists the riskiest attribute
//! combinations; without those settings the section is absent.

use crate::common;

use anonlab::assess::assess;
use anonlab::progress::Progress;
use anonlab::report::{self, plain, Report};
use anonlab::session::Session;

fn page_text(html: &str) -> String {
    let doc = common::parse_html(html);
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn report_states_the_population_risk_and_names_the_model() {
    let mut session = Session::demo().unwrap();
    let p = &mut session.attacker.population;
    p.sampling_fraction = Some(0.05);
    p.suda_max_size = Some(3);
    p.attribute_risks = true;
    let dir = tempfile::tempdir().unwrap();
    let project_file = dir.path().join("demo.json");
    session.to_project().save(&project_file).unwrap();
    let built = report::build(&session, &project_file, None, &Progress::new()).unwrap();
    let r = &built.report;

    // One truth: the same figures as `assess` for the project's attacker.
    let a = assess(&session, &Progress::new()).unwrap().report;
    let pop = a.population.as_ref().unwrap();
    assert_eq!(r.sample.population.as_ref(), Some(pop));
    assert_eq!(r.sample.suda, a.suda);
    assert_eq!(r.sample.attribute_risks, a.attribute_risks);
    assert!(r.sample.individual_risk.is_none());

    // The headline names the population, the journalist's chance and the
    // model Dankar et al.'s rule picked.
    let model = pop.population_uniques.dankar_model.unwrap().label();
    let headline = r
        .summary
        .iter()
        .find(|s| s.contains("sample of about"))
        .expect("a population sentence in the summary");
    assert!(
        headline.contains(&anonlab::format::thousands(pop.population_size)),
        "{headline}"
    );
    assert!(headline.contains("sampling fraction 0.05"), "{headline}");
    assert!(
        headline.contains(&plain::chance(pop.journalist.max)),
        "{headline}"
    );
    assert!(headline.contains(model), "{headline}");

    let out = dir.path().join("out");
    report::write(&built, &out, &anonlab::data::Inputs::new()).unwrap();
    let html = std::fs::read_to_string(out.join(report::HTML_FILE)).unwrap();
    let text = page_text(&html);
    assert!(text.contains("The file as a sample"), "{text}");
    assert!(text.contains(&format!("Dankar et al.'s (2012) rule picks {model}")));
    assert!(text.contains("Pitman") && text.contains("Zayatz") && text.contains("SNB"));
    assert!(text.contains("SUDA2"));
    assert!(text.contains("Which attributes make people unique"));
    // The riskiest single attribute is listed; hidden cells are named.
    let top = a
        .attribute_risks
        .as_ref()
        .unwrap()
        .iter()
        .filter(|x| x.attributes.len() == 1)
        .max_by(|x, y| x.uniques.total_cmp(&y.uniques))
        .unwrap();
    assert!(text.contains(&plain::list(&top.attributes)));
    assert!(text.contains("hidden cells count as a value of their own"));
    assert!(!text.contains("NaN"));
    let md = std::fs::read_to_string(out.join(report::MARKDOWN_FILE)).unwrap();
    assert!(md.contains("The file as a sample"));
    let json: Report =
        serde_json::from_str(&std::fs::read_to_string(out.join(report::JSON_FILE)).unwrap())
            .unwrap();
    assert_eq!(json.sample, r.sample);
}

#[test]
fn without_population_settings_the_section_is_absent() {
    let session = Session::demo().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project_file = dir.path().join("demo.json");
    session.to_project().save(&project_file).unwrap();
    let built = report::build(&session, &project_file, None, &Progress::new()).unwrap();
    assert!(built.report.sample.is_empty());
    assert!(!built
        .report
        .summary
        .iter()
        .any(|s| s.contains("sample of about")));
    let out = dir.path().join("out");
    report::write(&built, &out, &anonlab::data::Inputs::new()).unwrap();
    let html = std::fs::read_to_string(out.join(report::HTML_FILE)).unwrap();
    assert!(!page_text(&html).contains("The file as a sample"));
    let json = std::fs::read_to_string(out.join(report::JSON_FILE)).unwrap();
    assert!(!json.contains("\"sample\""));
}
