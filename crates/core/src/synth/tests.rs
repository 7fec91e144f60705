use super::*;

fn census(rows: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_census(&mut out, rows, seed).unwrap();
    out
}

fn demo(seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_demo(&mut out, seed).unwrap();
    out
}

fn records(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn share(rows: &[&Vec<String>], pred: impl Fn(&Vec<String>) -> bool) -> f64 {
    rows.iter().filter(|r| pred(r)).count() as f64 / rows.len() as f64
}

#[test]
fn census_is_deterministic_per_seed() {
    assert_eq!(census(5000, 7), census(5000, 7));
    assert_ne!(census(5000, 7), census(5000, 8));
}

#[test]
fn census_prefix_does_not_depend_on_row_count() {
    let long = census(3000, 11);
    let short = census(1000, 11);
    assert!(long.starts_with(&short));
}

#[test]
fn census_header_and_row_count() {
    let (header, rows) = records(&census(2500, 1));
    assert_eq!(header, CENSUS_COLUMNS);
    assert_eq!(rows.len(), 2500);
    assert!(rows.iter().all(|r| r.len() == CENSUS_COLUMNS.len()));
    let (header, rows) = records(&census(0, 1));
    assert_eq!(header, CENSUS_COLUMNS);
    assert!(rows.is_empty());
}

#[test]
fn census_values_in_range_and_vocabulary() {
    let (_, rows) = records(&census(20_000, 3));
    let countries: Vec<&str> = COUNTRIES_BY_RACE
        .iter()
        .flat_map(|l| l.iter().map(|&(c, _)| c))
        .chain([US])
        .collect();
    for r in &rows {
        assert!(SEX.contains(&r[0].as_str()));
        let age: u32 = r[1].parse().unwrap();
        assert!((MIN_AGE..=MAX_AGE).contains(&age), "age {age}");
        assert!(RACE.contains(&r[2].as_str()));
        assert!(MARITAL.contains(&r[3].as_str()));
        assert!(EDUCATION.contains(&r[4].as_str()));
        assert!(countries.contains(&r[5].as_str()));
        assert!(WORKCLASS.contains(&r[6].as_str()));
        assert!(OCCUPATION.contains(&r[7].as_str()));
        let hours: u32 = r[8].parse().unwrap();
        assert!((1..=99).contains(&hours), "hours {hours}");
        assert_eq!(r[9].len(), 5);
        let zip: u32 = r[9].parse().unwrap();
        assert!(REGIONS.iter().any(|g| zip / 100 == g.prefix), "zip {zip}");
        assert!(SALARY.contains(&r[10].as_str()));
    }
    let all: Vec<&Vec<String>> = rows.iter().collect();
    let us = share(&all, |r| r[5] == US);
    assert!((0.85..0.95).contains(&us), "United-States share {us}");
    let rich = share(&all, |r| r[10] == ">50K");
    assert!((0.18..0.32).contains(&rich), ">50K share {rich}");
    let male = share(&all, |r| r[0] == "Male");
    assert!((0.62..0.72).contains(&male), "male share {male}");
}

#[test]
fn no_value_needs_csv_quoting() {
    let needs_quote = |s: &str| s.contains([',', '"', '\n', '\r']) || s.trim() != s;
    let all = SEX
        .iter()
        .chain(&RACE)
        .chain(&MARITAL)
        .chain(&EDUCATION)
        .chain(&WORKCLASS)
        .chain(&OCCUPATION)
        .chain(&SALARY)
        .chain(&DISEASE)
        .chain(&FIRST_MALE)
        .chain(&FIRST_FEMALE)
        .chain(&SURNAMES)
        .copied()
        .chain(
            COUNTRIES_BY_RACE
                .iter()
                .flat_map(|l| l.iter().map(|&(c, _)| c)),
        );
    for v in all {
        assert!(!needs_quote(v), "{v:?} would need quoting");
    }
}

#[test]
fn census_correlations_are_present() {
    let (_, rows) = records(&census(20_000, 42));
    let age = |r: &Vec<String>| r[1].parse::<u32>().unwrap();
    let young: Vec<_> = rows.iter().filter(|r| age(r) < 25).collect();
    let older: Vec<_> = rows.iter().filter(|r| age(r) > 45).collect();
    let never = |r: &Vec<String>| r[3] == "Never-married";
    let (y, o) = (share(&young, never), share(&older, never));
    assert!(
        y > 0.7 && o < 0.15,
        "Never-married: {y} under 25, {o} over 45"
    );

    let of = |occ: &str| -> Vec<&Vec<String>> { rows.iter().filter(|r| r[7] == occ).collect() };
    let male = |r: &Vec<String>| r[0] == "Male";
    let craft = share(&of("Craft-repair"), male);
    let clerical = share(&of("Adm-clerical"), male);
    assert!(
        craft > 0.85 && clerical < 0.45,
        "male share: craft {craft}, clerical {clerical}"
    );

    let by_edu = |edu: &[&str]| -> Vec<&Vec<String>> {
        rows.iter()
            .filter(|r| edu.contains(&r[4].as_str()))
            .collect()
    };
    let degree = by_edu(&["Bachelors", "Masters", "Prof-school", "Doctorate"]);
    let school = by_edu(&["HS-grad", "11th", "10th", "9th"]);
    let prof = |r: &Vec<String>| r[7] == "Prof-specialty";
    let rich = |r: &Vec<String>| r[10] == ">50K";
    assert!(share(&degree, prof) > 4.0 * share(&school, prof));
    assert!(share(&degree, rich) > 2.5 * share(&school, rich));

    let hours = |r: &Vec<String>| r[8].parse::<u32>().unwrap();
    let mean =
        |rs: &[&Vec<String>]| rs.iter().map(|r| hours(r)).sum::<u32>() as f64 / rs.len() as f64;
    let retirees: Vec<_> = rows.iter().filter(|r| age(r) >= 70).collect();
    let prime: Vec<_> = rows
        .iter()
        .filter(|r| (30..=50).contains(&age(r)))
        .collect();
    assert!(mean(&retirees) + 10.0 < mean(&prime));
}

#[test]
fn census_zips_are_clustered() {
    let (_, rows) = records(&census(20_000, 5));
    let mut by_prefix = std::collections::BTreeMap::<&str, usize>::new();
    let mut distinct = std::collections::BTreeSet::new();
    for r in &rows {
        *by_prefix.entry(&r[9][..3]).or_default() += 1;
        distinct.insert(r[9].as_str());
    }
    assert_eq!(by_prefix.len(), REGIONS.len());
    let biggest = *by_prefix.values().max().unwrap();
    let smallest = *by_prefix.values().min().unwrap();
    assert!(biggest > 8 * smallest, "prefix sizes {by_prefix:?}");
    assert!(distinct.len() > 200, "{} distinct zips", distinct.len());
}

#[test]
fn demo_is_deterministic_and_well_formed() {
    let bytes = demo(DEMO_SEED);
    assert_eq!(bytes, demo(DEMO_SEED));
    assert_ne!(bytes, demo(DEMO_SEED + 1));
    let (header, rows) = records(&bytes);
    assert_eq!(header, DEMO_COLUMNS);
    assert_eq!(rows.len(), DEMO_ROWS);

    let names: std::collections::HashSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names.len(), DEMO_ROWS, "names are an identifier");
    for r in &rows {
        let age: u32 = r[2].parse().unwrap();
        assert!((MIN_AGE..=MAX_AGE).contains(&age));
        assert!(r[4].is_empty() || OCCUPATION.contains(&r[4].as_str()));
        assert!(r[5] == "0" || r[5] == "1");
        assert!(
            r[4].is_empty() <= (r[5] == "0"),
            "a missing cell is not flagged"
        );
        assert!(DISEASE.contains(&r[6].as_str()));
    }
}

#[test]
fn demo_flags_missing_values_and_unique_records() {
    let (_, rows) = records(&demo(DEMO_SEED));
    let all: Vec<&Vec<String>> = rows.iter().collect();
    let hidden = share(&all, |r| r[5] == "1");
    assert!(
        (0.15..0.25).contains(&hidden),
        "hide_occupation density {hidden}"
    );
    let protective: Vec<_> = rows.iter().filter(|r| r[4] == "Protective-serv").collect();
    assert!(share(&protective, |r| r[5] == "1") > 2.0 * hidden);

    let missing = rows.iter().filter(|r| r[4].is_empty()).count();
    assert!((5..=60).contains(&missing), "{missing} missing occupations");

    let mut keys = std::collections::HashMap::<(&str, &str, &str), usize>::new();
    for r in &rows {
        *keys.entry((&r[1], &r[2], &r[3])).or_default() += 1;
    }
    for &zip in &DEMO_RARE_ZIPS {
        let zip = zip.to_string();
        let here: Vec<_> = rows.iter().filter(|r| r[3] == zip).collect();
        assert_eq!(here.len(), 1, "zip {zip} holds exactly one patient");
        assert!(here[0][2].parse::<u32>().unwrap() >= 84);
        assert_eq!(
            keys[&(here[0][1].as_str(), here[0][2].as_str(), zip.as_str())],
            1
        );
    }

    let age = |r: &Vec<String>| r[2].parse::<u32>().unwrap();
    let old: Vec<_> = rows.iter().filter(|r| age(r) >= 60).collect();
    let young: Vec<_> = rows.iter().filter(|r| age(r) < 40).collect();
    let chronic =
        |r: &Vec<String>| matches!(r[6].as_str(), "Diabetes" | "Heart-disease" | "Cancer");
    assert!(share(&old, chronic) > 2.0 * share(&young, chronic));
}
