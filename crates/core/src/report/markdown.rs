//! The report as Markdown (CommonMark with GitHub tables): the same
//! sections as the HTML page, the charts referenced as the SVG files
//! written beside it, so the directory can be committed or mailed as is.

use std::fmt::Write as _;

use super::doc::{sections, title, Block};
use super::Report;

/// Text in a table cell or a line: pipes and line breaks would end the
/// cell, and a leading character could start other markup.
fn cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

pub fn to_markdown(r: &Report) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# {}\n", cell(&title(r)));
    for section in sections(r) {
        let _ = writeln!(m, "## {}\n", section.title);
        for block in &section.blocks {
            match block {
                Block::Para(p) => {
                    let _ = writeln!(m, "{}\n", cell(p));
                }
                Block::List(items) => {
                    for i in items {
                        let _ = writeln!(m, "- {}", cell(i));
                    }
                    m.push('\n');
                }
                Block::Table { head, rows } => {
                    let line = |cells: &[String]| {
                        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
                        format!("| {} |\n", cells.join(" | "))
                    };
                    m.push_str(&line(head));
                    let _ = writeln!(m, "|{}", "---|".repeat(head.len()));
                    for row in rows {
                        m.push_str(&line(row));
                    }
                    m.push('\n');
                }
                Block::Code(c) => {
                    let _ = writeln!(m, "```sh\n{c}\n```\n");
                }
                Block::Chart(i) => {
                    if let Some(c) = r.charts.get(*i) {
                        let _ = writeln!(
                            m,
                            "![{}]({})\n\n*{}*\n",
                            cell(&c.title),
                            c.file,
                            cell(&c.caption)
                        );
                    }
                }
            }
        }
    }
    m
}
