use super::*;

fn load(text: &str) -> Result<Dataset> {
    load_csv_bytes(text.as_bytes(), "t.csv", &CsvOptions::default())
}

#[test]
fn sniffs_each_candidate() {
    for d in [",", ";", "\t", "|"] {
        let t = format!("a{d}b{d}c\n1{d}2{d}3\n4{d}5{d}6\n");
        let ds = load(&t).unwrap();
        assert_eq!(ds.n_cols(), 3, "delimiter {d:?}");
        assert_eq!(ds.n_rows(), 2);
    }
}

#[test]
fn quoted_delimiters_do_not_fool_the_sniffer() {
    let t = "name;note\n\"Smith, J\";\"a, b, c\"\n\"Doe, K\";x\n";
    let ds = load(t).unwrap();
    assert_eq!(ds.column_names(), vec!["name", "note"]);
    assert_eq!(ds.col(0).display(ds.col(0).code(0)), "Smith, J");
}

#[test]
fn bom_missing_tokens_and_kinds() {
    let t = "\u{feff}age,city\n30,Oslo\n?,NA\n41,\n";
    let ds = load(t).unwrap();
    assert_eq!(ds.column_names(), vec!["age", "city"]);
    let age = ds.col(0);
    assert_eq!(age.kind(), ColumnKind::Numeric);
    assert_eq!(age.missing_count(), 1);
    assert_eq!(ds.col(1).missing_count(), 2);
    assert_eq!(ds.col(1).kind(), ColumnKind::Categorical);
}

#[test]
fn override_kind_and_delimiter() {
    let opts = CsvOptions {
        delimiter: Some(';'),
        categorical: vec!["zip".into()],
        ..Default::default()
    };
    let ds = load_csv_bytes(b"zip;x\n01234;1\n99999;2\n", "t", &opts).unwrap();
    assert_eq!(ds.col(0).kind(), ColumnKind::Categorical);
    assert_eq!(ds.col(0).display(0), "01234");
    let bad = CsvOptions {
        numeric: vec!["nope".into()],
        ..Default::default()
    };
    assert!(matches!(
        load_csv_bytes(b"a,b\n1,2\n", "t", &bad),
        Err(Error::UnknownColumn { .. })
    ));
}

#[test]
fn bad_input_names_file_row_and_column() {
    let e = load("").unwrap_err().to_string();
    assert!(e.contains("t.csv") && e.contains("empty"), "{e}");
    let e = load("a,b\n").unwrap_err().to_string();
    assert!(e.contains("no data rows"), "{e}");
    let e = load("a,b,c\n1,2,3\n4,5\n").unwrap_err().to_string();
    assert!(
        e.contains("row 3") && e.contains("'c'") && e.contains("ragged"),
        "{e}"
    );
    let e = load("a,a\n1,2\n").unwrap_err().to_string();
    assert!(e.contains("duplicated") && e.contains("'a'"), "{e}");
    let e = load("a,\u{1b}[31mred\n1,2\n").unwrap_err().to_string();
    assert!(
        e.contains("column '#2'") && e.contains("U+001B") && !e.contains('\u{1b}'),
        "{e}"
    );
    let e = load_csv_bytes(b"a,b\n1,\xff\xfe\n", "t.csv", &CsvOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("row 2") && e.contains("'b'") && e.contains("UTF-8"),
        "{e}"
    );
}

#[test]
fn unclosed_quote_is_reported_not_swallowed() {
    let e = load("sex,age,zip\nM,30,\"100\nF,41,200\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("row 2") && e.contains("'zip'") && e.contains("never closed"),
        "{e}"
    );
}

/// A quote that does not open a quoted field is a character, as the csv
/// crate and DataFusion's reader read it (issue 36, item 5): inside an
/// unquoted field, after a closed quoted field, after a space; an even
/// number of them or an odd one, anywhere in the file. Only a quoted
/// field still open at the end is refused, and checking the text
/// (`check_csv`'s mode) refuses what loading it refuses.
#[test]
fn a_quote_inside_an_unquoted_field_is_a_character() {
    let cases: [(&str, &[&str]); 5] = [
        ("a,b\n1,x\"y\n2,z\n", &["x\"y", "z"]),
        ("a,b\n1,x\"\"y\n2,z\n", &["x\"\"y", "z"]),
        ("a,b\n1,\"x\"y\"\n2,\"a\"\"b\"\n", &["xy\"", "a\"b"]),
        ("a;b\n1; \"x\"\n2;\"\"\"\"\n", &["\"x\"", "\""]),
        ("a,b\r\n1,\"p\r\nq\"\r\n2,r\"\r\n", &["p\r\nq", "r\""]),
    ];
    for (text, want) in cases {
        let ds = load(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let b = ds.column("b").unwrap();
        let got: Vec<&str> = (0..ds.n_rows())
            .map(|r| b.value(b.code(r)).unwrap_or("<missing>"))
            .collect();
        assert_eq!(got, want, "{text:?}");
        // The quoting followed across reads of any size.
        for step in [1, 2, 3] {
            let t = load_trickled(text.as_bytes(), step, &CsvOptions::default()).unwrap();
            assert_eq!(
                t.column("b").unwrap().codes(),
                b.codes(),
                "{text:?} by {step}"
            );
        }
        check_streaming(text.as_bytes(), &CsvOptions::default()).unwrap();
    }
    for text in ["a,b\n1,x\"y\n2,\"z\n", "a,b\n1,\"x\"\"\n"] {
        let e = load(text).unwrap_err().to_string();
        assert!(e.contains("never closed"), "{text:?}: {e}");
        let checked = check_streaming(text.as_bytes(), &CsvOptions::default());
        assert_eq!(checked.unwrap_err().to_string(), e, "{text:?}");
        let trickled = load_trickled(text.as_bytes(), 1, &CsvOptions::default());
        assert_eq!(trickled.unwrap_err().to_string(), e, "{text:?}");
    }
}

#[test]
fn oversized_field_is_refused() {
    let opts = CsvOptions {
        max_field_bytes: 10,
        ..Default::default()
    };
    let e = load_csv_bytes(b"a,b\n1,\"0123456789012\"\n", "t.csv", &opts).unwrap_err();
    assert_eq!(e.setting(), Some(Setting::MaxFieldBytes));
    let e = e.to_string();
    assert!(
        e.contains("row 2") && e.contains("'b'") && e.contains("raise the field size limit"),
        "{e}"
    );
}

#[test]
fn oversized_header_name_is_refused() {
    // tests/fuzz.rs found a header field past the limit that was kept.
    let opts = CsvOptions {
        max_field_bytes: 10,
        ..Default::default()
    };
    let e = load_csv_bytes(
        b"a,b01234567890
1,2
",
        "t.csv",
        &opts,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("row 1") && e.contains("#2") && e.contains("limit of 10 bytes"),
        "{e}"
    );
    assert!(load_csv_bytes(
        b"a,b012345678
1,2
",
        "t.csv",
        &opts
    )
    .is_ok());
}

/// `rows` data rows of `a,b,c` with distinct-ish values; `edit` may
/// replace a data row (0-based) by other bytes.
fn many_rows(rows: usize, edit: impl Fn(usize) -> Option<Vec<u8>>) -> Vec<u8> {
    let mut out = b"a,b,c\n".to_vec();
    for r in 0..rows {
        match edit(r) {
            Some(line) => out.extend_from_slice(&line),
            None => out.extend_from_slice(format!("{},x{},{}\n", r % 7, r % 13, r).as_bytes()),
        }
    }
    out
}

fn load_err(bytes: &[u8]) -> String {
    load_csv_bytes(bytes, "t.csv", &CsvOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn batches_keep_every_record_in_order() {
    let n = 3 * BATCH + 17;
    // Blank lines here and there, one of them at a batch boundary.
    let bytes = many_rows(n, |r| {
        (r % 1000 == 999 || r == BATCH)
            .then(|| format!("\n{},x{},{}\n", r % 7, r % 13, r).into_bytes())
    });
    let ds = load_csv_bytes(&bytes, "t.csv", &CsvOptions::default()).unwrap();
    assert_eq!(ds.n_rows(), n);
    let c = ds.column("c").unwrap();
    assert!((0..n).all(|r| c.number(c.code(r)) == Some(r as f64)));
    let b = ds.column("b").unwrap();
    assert!((0..n).all(|r| b.display(b.code(r)) == format!("x{}", r % 13)));
    // The text has no quote, so it took the path that reads it whole; the
    // streaming reader's batches give the same table.
    assert_eq!(load_streaming(&bytes, &CsvOptions::default()).unwrap(), ds);
}

#[test]
fn ragged_row_at_a_batch_boundary_is_found() {
    let bytes = many_rows(2 * BATCH, |r| (r == BATCH).then(|| b"1,2\n".to_vec()));
    let e = load_err(&bytes);
    // Data row BATCH is on line BATCH + 2 (the header is line 1).
    assert!(
        e.contains(&format!("row {}", BATCH + 2)) && e.contains("ragged"),
        "{e}"
    );
}

#[test]
fn first_bad_field_in_file_order_wins_across_batches() {
    // Bad UTF-8 in 'c' early, a ragged row later: the bad field is reported.
    let bytes = many_rows(3 * BATCH, |r| match r {
        r if r == BATCH + 5 => Some(b"1,2,\xff\n".to_vec()),
        r if r == BATCH + 9 => Some(b"1,2\n".to_vec()),
        _ => None,
    });
    let e = load_err(&bytes);
    assert!(
        e.contains(&format!("row {}", BATCH + 7)) && e.contains("'c'") && e.contains("UTF-8"),
        "{e}"
    );
    // Two bad fields on one row: the leftmost is reported, not the one
    // of a column that fails earlier in its own pass.
    let bytes = many_rows(2 * BATCH, |r| match r {
        100 => Some(b"1,\xfe,\xff\n".to_vec()),
        101 => Some(b"\xff,2,3\n".to_vec()),
        _ => None,
    });
    let e = load_err(&bytes);
    assert!(e.contains("row 102") && e.contains("'b'"), "{e}");
}

#[test]
fn unclosed_quote_in_a_full_last_batch_names_its_row() {
    let bytes = many_rows(BATCH, |r| {
        (r == BATCH - 1).then(|| b"1,2,\"3\n4,5,6\n".to_vec())
    });
    let e = load_err(&bytes);
    assert!(
        e.contains(&format!("row {}", BATCH + 1))
            && e.contains("'c'")
            && e.contains("never closed"),
        "{e}"
    );
}

/// A reader that hands out a few bytes at a time, so line breaks fall
/// on every chunk boundary.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn load_trickled(bytes: &[u8], step: usize, opts: &CsvOptions) -> Result<Dataset> {
    let split = bytes.len().min(2);
    let rest = Trickle(&bytes[split..], step);
    let source = Source {
        path: Path::new("t.csv"),
        name: "t",
        size_hint: 0,
        regular: false,
        codec: None,
        text: None,
        check_only: false,
    };
    load_from(&source, bytes[..split].to_vec(), rest, opts)
}

#[test]
fn row_numbers_are_lines_for_lf_crlf_and_cr() {
    for eol in ["\n", "\r\n", "\r"] {
        // A ragged row on line 6, after a blank line.
        let text = ["a,b,c", "1,2,3", "4,5,6", "", "7,8,9", "1,2"].join(eol) + eol;
        let opts = CsvOptions::default();
        for step in [1, 2, 3, 1 << 20] {
            let e = load_trickled(text.as_bytes(), step, &opts)
                .unwrap_err()
                .to_string();
            assert!(e.contains("row 6, column 'c'"), "{eol:?} step {step}: {e}");
        }
        // A bad byte on line 2 (not the header).
        let bytes = [b"a,b".as_slice(), eol.as_bytes(), b"1,\xff", eol.as_bytes()].concat();
        let e = load_err(&bytes);
        assert!(e.contains("row 2, column 'b'"), "{eol:?}: {e}");
        // A value that is not a number in a column forced numeric, after
        // a quoted line break: its line, not its record count.
        let text = ["a,b", "1,\"x", "y\"", "", "z,2"].join(eol) + eol;
        let forced = CsvOptions {
            numeric: vec!["a".into()],
            ..Default::default()
        };
        let e = load_csv_bytes(text.as_bytes(), "t.csv", &forced)
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 5, column 'a'"), "{eol:?}: {e}");
    }
}

#[test]
fn a_row_without_end_is_refused_at_the_row_limit() {
    let opts = CsvOptions {
        max_row_bytes: 1000,
        ..Default::default()
    };
    let mut bytes = b"a,b\n1,2\n3,".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 5000));
    let e = load_trickled(&bytes, 100, &opts).unwrap_err();
    assert_eq!(e.setting(), Some(Setting::MaxRowBytes));
    let e = e.to_string();
    assert!(
        e.contains("row 3")
            && e.contains("limit of 1,000 bytes")
            && e.contains("raise the row size limit (the project's csv.max_row_bytes)"),
        "{e}"
    );
    assert!(
        !e.contains("--"),
        "a CLI flag in the library's message: {e}"
    );
    assert!(e.contains("not a regular file"), "{e}");
    // An unclosed quote that swallows the rest: the same limit.
    let mut bytes = b"a,b\n1,\"2\n".to_vec();
    bytes.extend(b"3,4\n".repeat(1000));
    let e = load_trickled(&bytes, 64, &opts).unwrap_err().to_string();
    assert!(
        e.contains("row 2") && e.contains("limit of 1,000 bytes"),
        "{e}"
    );
    // A row just under the limit loads.
    let long = format!("a,b\n1,{}\n2,3\n", "x".repeat(900));
    assert_eq!(
        load_trickled(long.as_bytes(), 7, &opts).unwrap().n_rows(),
        2
    );
}

#[test]
fn file_and_column_limits_name_the_setting_not_a_flag() {
    let opts = CsvOptions {
        max_file_bytes: 100,
        ..Default::default()
    };
    let bytes = b"a,b\n".repeat(200);
    let e = load_trickled(&bytes, 10, &opts).unwrap_err();
    assert_eq!(e.setting(), Some(Setting::MaxFileBytes));
    let e = e.to_string();
    assert!(
        e.contains("limit of 100 bytes") && e.contains("raise the file size limit"),
        "{e}"
    );
    assert!(!e.contains("--"), "{e}");
    let opts = CsvOptions {
        max_columns: 3,
        ..Default::default()
    };
    let e = load_csv_bytes(b"a,b,c,d\n1,2,3,4\n", "t.csv", &opts).unwrap_err();
    assert_eq!(e.setting(), Some(Setting::MaxColumns));
    let e = e.to_string();
    assert!(
        e.contains("4 columns, over the limit of 3") && e.contains("raise the column limit"),
        "{e}"
    );
    assert!(!e.contains("--"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.csv");
    std::fs::write(&big, b"a,b\n1,2\n".repeat(100)).unwrap();
    let opts = CsvOptions {
        max_file_bytes: 500,
        ..Default::default()
    };
    let e = load_csv(&big, &opts).unwrap_err().to_string();
    assert!(
        e.contains("big.csv") && e.contains("limit of 500 bytes"),
        "{e}"
    );
    assert!(!e.contains("regular"), "{e}");
    let e = load_csv(dir.path(), &CsvOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("directory"), "{e}");
}

#[test]
fn numbers_equal_as_numbers_are_one_value_in_canonical_form() {
    let ds = load("x,y\n-0,a\n0,a\n0.0,a\n00,a\n39,b\n39.0,b\n039,b\n3.9e1,b\n").unwrap();
    let x = ds.col(0);
    assert_eq!(x.kind(), ColumnKind::Numeric);
    assert_eq!(x.dictionary(), &["0".into(), "39".into()] as &[Box<str>]);
    assert_eq!(x.codes(), &[0, 0, 0, 0, 1, 1, 1, 1]);
    // NaN and inf are text: the column is categorical, kept as written.
    let ds = load("x\n1\nNaN\ninf\n").unwrap();
    assert_eq!(ds.col(0).kind(), ColumnKind::Categorical);
    let e = load_csv_bytes(
        b"x\n1\nNaN\n",
        "t.csv",
        &CsvOptions {
            numeric: vec!["x".into()],
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("row 3") && e.contains("'NaN' is not a number"),
        "{e}"
    );
}

/// The streaming reader on a regular file's bytes, never the path that
/// reads a quote-free text whole (`unquoted`).
fn load_streaming(bytes: &[u8], opts: &CsvOptions) -> Result<Dataset> {
    let split = bytes.len().min(SNIFF_BYTES);
    let source = Source {
        path: Path::new("t.csv"),
        name: "t",
        size_hint: bytes.len() as u64,
        regular: true,
        codec: None,
        text: None,
        check_only: false,
    };
    load_from(&source, bytes[..split].to_vec(), &bytes[split..], opts)
}

/// [`check_csv`]'s reading of `bytes`: the loader's checks, no column kept.
fn check_streaming(bytes: &[u8], opts: &CsvOptions) -> Result<()> {
    let split = bytes.len().min(SNIFF_BYTES);
    let source = Source {
        path: Path::new("t.csv"),
        name: "t",
        size_hint: 0,
        regular: true,
        codec: None,
        text: None,
        check_only: true,
    };
    load_from(&source, bytes[..split].to_vec(), &bytes[split..], opts).map(|_| ())
}

/// The rows after a one-line header `header` read by `unquoted` in
/// `parts` parts, finished as the loader finishes them; `None` where that
/// path gives up.
fn load_unquoted(bytes: &[u8], header: usize, opts: &CsvOptions, parts: usize) -> Option<Dataset> {
    // The loader refuses a header over the row limit before the rows'
    // reader runs (`load_csv_source`); the rows' reader never sees one.
    if header as u64 > opts.max_row_bytes {
        return None;
    }
    let names: Vec<String> = std::str::from_utf8(&bytes[..header])
        .ok()?
        .trim_end()
        .split(',')
        .map(String::from)
        .collect();
    let missing: Vec<&[u8]> = opts.missing.iter().map(|s| s.as_bytes()).collect();
    let rules = FieldRules::new(opts.trim, &missing);
    let rows = &bytes[header..];
    if !unquoted::applies(rows, b',') {
        return None;
    }
    let plain = unquoted::Plain {
        delimiter: b',',
        names: &names,
        rules: &rules,
        max_field_bytes: opts.max_field_bytes,
        max_row_bytes: opts.max_row_bytes,
    };
    let built = plain.read_in(rows, parts, 4)?;
    let columns = finish_columns(built, opts, Path::new("t.csv"), |r| r).ok()?;
    Dataset::new("t", columns).ok()
}

#[test]
fn a_quote_free_text_read_in_parts_is_the_streamed_table() {
    // Rows of awkward shapes: blank lines, every line ending, a last row
    // without one, missing tokens, padded and numeric-looking values.
    let mut text = b"a,b,c\n".to_vec();
    for r in 0..500 {
        let end: &[u8] = match r % 4 {
            0 => b"\n",
            1 => b"\r\n",
            2 => b"\r",
            _ => b"\n\n\r\n",
        };
        let a = ["1", " 2 ", "?", "", "3.0", "x"][r % 6];
        text.extend_from_slice(format!("{a},v{},{}", r % 11, r * 7 % 13).as_bytes());
        text.extend_from_slice(end);
    }
    text.extend_from_slice(b"9,last,0");
    let opts = CsvOptions::default();
    let streamed = load_streaming(&text, &opts).unwrap();
    assert_eq!(streamed.n_rows(), 501);
    for parts in 1..=7 {
        assert_eq!(
            load_unquoted(&text, 6, &opts, parts).as_ref(),
            Some(&streamed),
            "{parts} parts"
        );
    }
    assert_eq!(load(std::str::from_utf8(&text).unwrap()).unwrap(), streamed);
}

mod same_as_streamed {
    use super::*;
    use proptest::prelude::*;

    /// A field: mostly a few values, sometimes a long one, bytes that are
    /// not UTF-8, a delimiter too many, or a line break (a blank line).
    fn field() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            8 => prop::sample::select(vec!["", " ", "?", "NA", "1", "2.0", " 7 ", "x", "yy", "é", "1e3", "-0"])
                .prop_map(|s| s.as_bytes().to_vec()),
            1 => Just(b"a-rather-long-value-of-thirty".to_vec()),
            1 => Just(b"\xff\xfe".to_vec()),
            1 => Just(b"p,q".to_vec()),
            1 => Just(b"\n".to_vec()),
            1 => Just(b"\r\n\r\n".to_vec()),
        ]
    }

    fn text() -> impl Strategy<Value = (usize, Vec<u8>)> {
        (1usize..4).prop_flat_map(|cols| {
            let row = prop::collection::vec(field(), cols..=cols);
            let end = prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r", b"\n\n", b""]);
            (Just(cols), prop::collection::vec((row, end), 0..40)).prop_map(|(cols, rows)| {
                let names: Vec<String> = (0..cols).map(|c| format!("c{c}")).collect();
                let mut out = format!("{}\n", names.join(",")).into_bytes();
                for (fields, end) in rows {
                    out.extend_from_slice(&fields.join(&b","[..]));
                    out.extend_from_slice(end);
                }
                (out.iter().position(|&b| b == b'\n').unwrap_or(0) + 1, out)
            })
        })
    }

    fn options() -> impl Strategy<Value = CsvOptions> {
        (
            prop::sample::select(vec![4usize, 16, 1 << 20]),
            prop::sample::select(vec![8u64, 24, 64, 16 << 20]),
            any::<bool>(),
        )
            .prop_map(|(field, row, numeric)| CsvOptions {
                max_field_bytes: field,
                max_row_bytes: row,
                numeric: if numeric {
                    vec!["c0".into()]
                } else {
                    Vec::new()
                },
                ..Default::default()
            })
    }

    proptest! {
        /// The loader (which reads a quote-free text whole, in parts)
        /// gives the streaming reader's table, or its very message.
        #[test]
        fn loads_alike((header, text) in text(), opts in options(), parts in 1usize..5) {
            let streamed = load_streaming(&text, &opts).map_err(|e| e.to_string());
            let whole = load_csv_bytes(&text, "t.csv", &opts).map_err(|e| e.to_string());
            prop_assert_eq!(&whole, &streamed);
            // In parts, the rows path gives the table or gives up.
            if let Some(ds) = load_unquoted(&text, header, &opts, parts) {
                prop_assert_eq!(Ok(ds), streamed);
            }
        }
    }
}

/// The quick scan the engine's check starts with says a file is plain
/// only when the loader accepts it, whatever the size of its reads; it
/// leaves quotes, blank lines, CRs alone, ragged rows and long fields to
/// the loader.
#[test]
fn the_quick_check_vouches_only_for_what_the_loader_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.csv");
    let small = CsvOptions {
        max_field_bytes: 8,
        max_row_bytes: 24,
        ..CsvOptions::default()
    };
    let cases: [(&str, bool); 14] = [
        ("a,b\n1,2\n3,4\n", true),
        ("a,b\r\n1,2\r\n3,4", true),
        ("\u{feff}a;b\n1;2\n", true),
        ("a,b\n1, x \n,\n", true),
        ("a,b\n1,x\"y\n", false),
        ("a,b\n1,2\n\n3,4\n", false),
        ("a,b\n1,2\r3,4\n", false),
        ("\na,b\n1,2\n", false),
        ("a,b\n1,2,3\n", false),
        ("a,b\n1\n", false),
        ("a,b\n1,123456789\n", false),
        ("a,b\n1,12345678\n", true),
        ("a,b\n", false),
        ("a,b\n1,caf\u{e9}\n", true),
    ];
    for (text, plain) in cases {
        std::fs::write(&file, text).unwrap();
        for block in [1, 2, 5, 64, QUICK_BLOCK] {
            let quick = quick_check(&file, &small, block);
            assert_eq!(quick, plain, "{text:?} by {block}");
        }
        if plain {
            load_csv(&file, &small).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        }
    }
    // Not UTF-8: left to the loader, which names the field.
    std::fs::write(&file, b"a,b\n1,caf\xe9\n").unwrap();
    assert!(!quick_check(&file, &small, 3));
    assert!(check_csv(&file, &small).is_err());
}
