//! Chart files decoded and checked (issue 7, "chart files decoded and
//! checked for size and non-blank content"): every kind rendered from the
//! demo session (and Adult when present) to PNG, decoded with `png`, and
//! to SVG, parsed with `roxmltree`; the title is in the SVG, each series is
//! drawn in its own colour, and a PNG has the requested size, ink and
//! several colours.

use crate::common;

use std::collections::HashSet;
use std::io::Cursor;

use anonlab::anonymize::{run_verified, Measure};
use anonlab::assess::assess;
use anonlab::charts::{self, Chart, Plot};
use anonlab::progress::Progress;
use anonlab::session::Session;
use anonlab::stats::{correlation_matrix, Discretization, Measure as Correlation};

struct Decoded {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

fn decode(bytes: &[u8]) -> Decoded {
    let decoder = png::Decoder::new(Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut rgb = vec![0; reader.output_buffer_size().expect("a buffer size")];
    let info = reader.next_frame(&mut rgb).expect("a PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    rgb.truncate(info.buffer_size());
    Decoded {
        width: info.width,
        height: info.height,
        rgb,
    }
}

/// Share of non-white pixels and the number of distinct colours.
fn ink(d: &Decoded) -> (f64, usize) {
    let pixels: Vec<[u8; 3]> = d.rgb.chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    let inked = pixels.iter().filter(|p| **p != [255, 255, 255]).count();
    let colours: HashSet<[u8; 3]> = pixels.into_iter().collect();
    (inked as f64 / (d.width * d.height) as f64, colours.len())
}

fn series_count(c: &Chart) -> usize {
    match &c.plot {
        Plot::Bars { series, .. } | Plot::Steps { series, .. } | Plot::Markers { series, .. } => {
            series.len()
        }
        Plot::HeatMap { .. } => 0,
    }
}

/// Every check a rendered chart must pass, in both formats.
fn check(c: &Chart) {
    let png = c.to_png().unwrap();
    let d = decode(&png);
    assert_eq!((d.width, d.height), (c.width, c.height));
    assert!(d.width >= 1000 && d.height >= 600, "printable size");
    let (share, colours) = ink(&d);
    assert!(
        share > 0.01,
        "{}: only {share:.4} of the PNG is drawn",
        c.title
    );
    // Black text and axes, anti-aliased greys, and the series' colours.
    assert!(
        colours >= 4 + series_count(c),
        "{}: {colours} colours",
        c.title
    );

    let svg = c.to_svg().unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some(c.width.to_string().as_str()));
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    assert!(texts.contains(&c.title.as_str()), "title in the SVG");
    assert!(texts.contains(&c.x_label.as_str()), "x axis label");
    assert!(texts.contains(&c.y_label.as_str()), "y axis label");
    let colour = |i: usize| {
        let series_colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"];
        series_colours[i % series_colours.len()]
    };
    match &c.plot {
        Plot::Bars { series, categories } => {
            for (i, s) in series.iter().enumerate() {
                let drawn = doc
                    .descendants()
                    .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour(i)))
                    .count();
                // One bar per category plus the legend's swatch.
                assert_eq!(drawn, categories.len() + 1, "bars of '{}'", s.label);
                if series.len() > 1 {
                    assert!(texts.contains(&s.label.as_str()), "legend '{}'", s.label);
                }
            }
        }
        Plot::Steps { series, .. } | Plot::Markers { series, .. } => {
            for (i, s) in series.iter().enumerate() {
                let lines = doc
                    .descendants()
                    .filter(|n| {
                        n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour(i))
                    })
                    .count();
                // The line and its legend sample.
                assert_eq!(lines, 2, "line of '{}'", s.label);
                assert!(texts.contains(&s.label.as_str()), "legend '{}'", s.label);
            }
        }
        Plot::HeatMap {
            rows,
            columns,
            cells,
            decimals,
            ..
        } => {
            for name in rows.iter().chain(columns) {
                assert!(texts.contains(&name.as_str()), "label '{name}'");
            }
            // Every cell's value is written in it.
            for v in cells.iter().flatten() {
                let shown = v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.*}", decimals));
                assert!(texts.contains(&shown.as_str()), "cell value {shown}");
            }
        }
    }
}

fn demo_charts() -> Vec<Chart> {
    let s = Session::demo().unwrap();
    let sim = assess(&s, &Progress::new()).unwrap().simulation;
    let measure = Measure {
        queries: 0,
        query_seed: 1,
        ..Default::default()
    };
    let mut runs = Vec::new();
    for id in ["mondrian-l", "anatomy", "cbg"] {
        let req = s.request(id, 2, 2).unwrap();
        runs.push(run_verified(id, &req, &measure, &Progress::new()).unwrap());
    }
    let (release, eval) = &runs[0];
    let after = eval.reidentification.histogram.as_slice();
    let breach: Vec<(&str, &[anonlab::risk::CdfPoint])> = ["mondrian-l", "anatomy", "cbg"]
        .iter()
        .zip(&runs)
        .map(|(id, (_, e))| (*id, e.breach.as_ref().unwrap().cdf.as_slice()))
        .collect();
    let groups = charts::group_sizes(release, &s.dataset);
    let ds = &s.dataset;
    let m = correlation_matrix(
        ds,
        &(0..ds.n_cols()).collect::<Vec<_>>(),
        Correlation::Phi2,
        &Discretization {
            bins: 5,
            missing: Default::default(),
        },
    )
    .unwrap();
    vec![
        charts::reid_histogram(&[("original", &sim.histogram), ("mondrian-l", after)]).unwrap(),
        charts::reid_cdf(&[
            ("original", &sim.cdf),
            ("mondrian-l", &eval.reidentification.cdf),
        ])
        .unwrap(),
        charts::breach_cdfs(&breach).unwrap(),
        charts::class_sizes(&[("original", &sim.matches), ("mondrian-l", &groups)]).unwrap(),
        charts::correlation_heatmap(&m).unwrap(),
        charts::prefix_chart(&[("original", &sim.prefix)]).unwrap(),
        charts::sweep_heatmap(
            "mean breach probability",
            &[2, 3],
            &[2, 3],
            vec![vec![Some(0.25), Some(0.2)], vec![None, Some(0.125)]],
        )
        .unwrap(),
    ]
}

#[test]
fn every_chart_of_the_demo_renders_to_a_printable_png_and_a_well_formed_svg() {
    for c in demo_charts() {
        check(&c);
    }
}

#[test]
fn the_release_side_of_a_chart_is_what_the_evaluation_measured() {
    let s = Session::demo().unwrap();
    let req = s.request("mondrian-l", 2, 2).unwrap();
    let measure = Measure {
        queries: 0,
        query_seed: 1,
        ..Default::default()
    };
    let (release, eval) = run_verified("mondrian-l", &req, &measure, &Progress::new()).unwrap();
    let sizes = charts::group_sizes(&release, &s.dataset);
    // Every published record counted once, none in a class below k.
    assert_eq!(
        sizes.len(),
        s.dataset.n_rows() - release.suppressed_rows.len()
    );
    assert!(sizes.iter().all(|&z| z >= 2));
    let c = charts::reid_histogram(&[("after", &eval.reidentification.histogram)]).unwrap();
    let Plot::Bars { series, .. } = &c.plot else {
        panic!("bars")
    };
    let drawn: Vec<usize> = series[0].points.iter().map(|p| p.1 as usize).collect();
    let measured: Vec<usize> = eval
        .reidentification
        .histogram
        .iter()
        .map(|b| b.records)
        .collect();
    assert_eq!(drawn, measured);
}

#[test]
fn write_chooses_the_format_by_extension_and_refuses_others() {
    let dir = tempfile::tempdir().unwrap();
    let c = demo_charts().swap_remove(1);
    let svg = dir.path().join("cdf.SVG");
    assert_eq!(
        c.write(&svg, &anonlab::data::Inputs::new()).unwrap(),
        charts::Format::Svg
    );
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let png = dir.path().join("cdf.png");
    assert_eq!(
        c.write(&png, &anonlab::data::Inputs::new()).unwrap(),
        charts::Format::Png
    );
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    let bad = dir.path().join("cdf.jpg");
    let e = c.write(&bad, &anonlab::data::Inputs::new()).unwrap_err();
    assert!(e.to_string().contains("cdf.jpg"), "{e}");
    assert!(!bad.exists());
}

#[test]
fn adult_charts_render_with_the_simulators_figures() {
    if !common::have_adult() {
        return;
    }
    let s = Session::open(&common::adult_path(), Default::default()).unwrap();
    let mut s = s;
    let qi: Vec<String> = common::ADULT_QI7.iter().map(|c| c.to_string()).collect();
    let mut roles = std::collections::BTreeMap::new();
    for c in &qi {
        roles.insert(c.clone(), anonlab::data::Role::QuasiIdentifier);
    }
    s.roles = anonlab::data::Roles::from_map(&s.dataset, &roles).unwrap();
    s.attacker.known = qi;
    let sim = assess(&s, &Progress::new()).unwrap().simulation;
    let c = charts::prefix_chart(&[("Adult", &sim.prefix)]).unwrap();
    check(&c);
    let Plot::Markers { series, .. } = &c.plot else {
        panic!("markers")
    };
    // The last point is the simulator's count of uniques on all 7 QIs.
    assert_eq!(
        series[0].points.last().unwrap().1,
        sim.summary.uniques as f64
    );
    let c = charts::class_sizes(&[("Adult", &sim.matches)]).unwrap();
    check(&c);
    let Plot::Bars { series, .. } = &c.plot else {
        panic!("bars")
    };
    assert_eq!(series[0].points[0].1, sim.summary.uniques as f64);
    let total: f64 = series[0].points.iter().map(|p| p.1).sum();
    assert_eq!(total, s.dataset.n_rows() as f64);
}
