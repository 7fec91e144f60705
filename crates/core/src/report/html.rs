//! The report as one self-contained HTML page: inline CSS, the charts as
//! inline SVG, no script and nothing fetched from the network. The markup
//! is also well-formed XML (XHTML namespace, every element closed, every
//! data-derived string escaped), so it can be checked and transformed by
//! XML tools.

use std::fmt::Write as _;

use super::doc::{sections, title, Block};
use super::Report;

/// Readable on screen and on paper, without web fonts.
const CSS: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #111; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #bbb; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
ul.summary li { margin: 0.3em 0; font-size: 1.08em; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 1.5em 0; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.95em; color: #333; }
.note { color: #8a1c00; font-weight: bold; }
@media print { body { max-width: none; } }
";

/// Escape text for element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Characters XML 1.0 forbids (control codes from a data file).
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The page; `svgs` are the charts' SVG documents, parallel to `r.charts`.
pub fn to_html(r: &Report, svgs: &[String]) -> String {
    let mut h = String::new();
    let t = escape(&title(r));
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{t}</h1>\n"
    );
    for section in sections(r) {
        let _ = writeln!(h, "<h2>{}</h2>", escape(section.title));
        for block in &section.blocks {
            match block {
                Block::Para(p) => {
                    let class = if p.starts_with("Note:") {
                        " class=\"note\""
                    } else {
                        ""
                    };
                    let _ = writeln!(h, "<p{class}>{}</p>", escape(p));
                }
                Block::List(items) => {
                    let class = if section.title == "Summary" {
                        " class=\"summary\""
                    } else {
                        ""
                    };
                    let _ = writeln!(h, "<ul{class}>");
                    for i in items {
                        let _ = writeln!(h, "<li>{}</li>", escape(i));
                    }
                    h.push_str("</ul>\n");
                }
                Block::Table { head, rows } => {
                    h.push_str("<table>\n<thead><tr>");
                    for c in head {
                        let _ = write!(h, "<th>{}</th>", escape(c));
                    }
                    h.push_str("</tr></thead>\n<tbody>\n");
                    for row in rows {
                        h.push_str("<tr>");
                        for c in row {
                            let _ = write!(h, "<td>{}</td>", escape(c));
                        }
                        h.push_str("</tr>\n");
                    }
                    h.push_str("</tbody>\n</table>\n");
                }
                Block::Code(c) => {
                    let _ = writeln!(h, "<pre><code>{}</code></pre>", escape(c));
                }
                Block::Chart(i) => {
                    let (Some(entry), Some(svg)) = (r.charts.get(*i), svgs.get(*i)) else {
                        continue;
                    };
                    let _ = writeln!(
                        h,
                        "<figure>\n{}\n<figcaption><strong>{}</strong>. {}</figcaption>\n</figure>",
                        svg.trim(),
                        escape(&entry.title),
                        escape(&entry.caption)
                    );
                }
            }
        }
    }
    h.push_str("</body>\n</html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_in_data_is_text() {
        assert_eq!(
            escape("<b>\"O'Neil\" & co</b>"),
            "&lt;b&gt;&quot;O&#39;Neil&quot; &amp; co&lt;/b&gt;"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{fffd}b");
    }
}
