//! Rendering a [`Chart`] on any plotters backend, so that SVG and PNG are
//! one drawing routine and cannot drift apart.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Chart, Plot, Series, FONT};
use crate::error::{Error, Result};

const TITLE: u32 = 30;
const AXIS: u32 = 22;
const TICKS: u32 = 18;
const LEGEND: u32 = 20;
const CELL: u32 = 18;
const LINE: u32 = 3;

/// Okabe & Ito's palette for colour-blind readers, darkest first so two
/// series (before/after) differ in lightness too when printed grey.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
];

pub(crate) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn failed<E: std::fmt::Display>(e: E) -> Error {
    Error::Internal(format!("drawing the chart: {e}"))
}

pub(super) fn draw<DB: DrawingBackend>(chart: &Chart, backend: DB) -> Result<()> {
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let root = titled(root, &chart.title)?;
    match &chart.plot {
        Plot::Bars { categories, series } => bars(chart, &root, categories, series)?,
        Plot::Steps {
            series,
            x_range,
            y_range,
        } => steps(chart, &root, series, *x_range, *y_range)?,
        Plot::Markers { categories, series } => markers(chart, &root, categories, series)?,
        Plot::HeatMap {
            rows,
            columns,
            cells,
            range,
            measure,
            decimals,
        } => heatmap(
            chart,
            &root,
            HeatMapData {
                rows,
                columns,
                cells,
                range: *range,
                measure,
                decimals: *decimals,
            },
        )?,
    }
    root.present().map_err(failed)?;
    Ok(())
}

/// Smallest font a title shrinks to before it is cut; below it a title
/// would not be read anyway. Titles are a sentence or two, so this is
/// never reached at the sizes `Chart::check_size` allows.
const TITLE_MIN: u32 = 12;
/// Room kept free at each side of a title, in pixels.
const TITLE_MARGIN: u32 = 10;

/// The title drawn above the plot, whole: on one line at [`TITLE`] px
/// where it fits, else on two lines split at the space that balances
/// them, else smaller. plotters' `titled` draws one centred line and cuts
/// whatever passes the edges ("bility of the sensitive value, … not p").
/// Returns the area under the title.
fn titled<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>> {
    let (width, _) = root.dim_in_pixel();
    let measure = |text: &str, size: u32| {
        root.estimate_text_size(text, &TextStyle::from((FONT, size).into_font()))
            .map_or(u32::MAX, |(w, _)| w)
    };
    let (lines, size) = title_lines(title, width.saturating_sub(2 * TITLE_MARGIN), measure);
    let font = (FONT, size).into_font().color(&BLACK);
    let line_height = size + size / 4;
    let padding = (size / 2).min(5);
    let style = font.pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        let y = padding + i as u32 * line_height;
        root.draw_text(line, &style, ((width / 2) as i32, y as i32))
            .map_err(failed)?;
    }
    let height = 2 * padding + lines.len() as u32 * line_height;
    let (_, below) = root.split_vertically(height);
    Ok(below)
}

/// `title` as the lines it is drawn on and their font size, given the
/// `room` in pixels and a `measure` of a text's width at a size: one line
/// at the largest size that fits, else two lines split at a space, else
/// the size below. Only at [`TITLE_MIN`] px is a line that still does not
/// fit left as it is.
pub(crate) fn title_lines(
    title: &str,
    room: u32,
    measure: impl Fn(&str, u32) -> u32,
) -> (Vec<String>, u32) {
    let mut size = TITLE;
    loop {
        if measure(title, size) <= room {
            return (vec![title.to_string()], size);
        }
        let best = title
            .match_indices(' ')
            .map(|(at, _)| (title[..at].trim_end(), title[at..].trim_start()))
            .map(|(a, b)| (measure(a, size).max(measure(b, size)), a, b))
            .min_by_key(|(w, _, _)| *w);
        if let Some((w, a, b)) = best {
            if w <= room || size <= TITLE_MIN {
                return (vec![a.to_string(), b.to_string()], size);
            }
        } else if size <= TITLE_MIN {
            return (vec![title.to_string()], size);
        }
        size -= 2;
    }
}

/// Categories centred on 0, 1, ..., n − 1. With `n` labels asked for on a
/// range of length n, plotters' tick search settles on step 1, so the ticks
/// fall on the centres and [`category_label`] names them.
fn category_axis(n: usize) -> std::ops::Range<f64> {
    -0.5..n as f64 - 0.5
}

fn category_label(categories: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 {
        categories.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// Upper end of a count axis: the largest value plus headroom for the
/// legend box, never 0 (an empty plot still gets an axis).
fn y_top(series: &[Series]) -> f64 {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    if max > 0.0 {
        max * 1.15
    } else {
        1.0
    }
}

/// Counts with thousands separators; fractions with few decimals.
fn tick(v: f64) -> String {
    if v.abs() >= 1000.0 || (v.fract() == 0.0 && v.abs() >= 1.0) {
        crate::format::thousands(v.round().max(0.0) as u64)
    } else if v == 0.0 {
        "0".into()
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    c: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    series: &[Series],
    position: SeriesLabelPosition,
) -> Result<()> {
    if series.len() < 2 && series.iter().all(|s| s.label.is_empty()) {
        return Ok(());
    }
    c.configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, LEGEND))
        .legend_area_size(45)
        .margin(12)
        .draw()
        .map_err(failed)
}

/// The frame shared by bar, step and marker charts: margin and room for
/// the axis labels.
fn axes<'a, 'b, DB: DrawingBackend>(root: &'a DrawingArea<DB, Shift>) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(root);
    b.margin(20).x_label_area_size(70).y_label_area_size(110);
    b
}

fn bars<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
    categories: &[String],
    series: &[Series],
) -> Result<()> {
    let n = categories.len().max(1);
    let mut c = axes(root)
        .build_cartesian_2d(category_axis(n), 0.0..y_top(series))
        .map_err(failed)?;
    c.configure_mesh()
        .disable_x_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style((FONT, AXIS))
        .label_style((FONT, TICKS))
        .x_labels(n)
        .x_label_formatter(&|v| category_label(categories, *v))
        .y_label_formatter(&|v| tick(*v))
        .max_light_lines(0)
        .draw()
        .map_err(failed)?;
    // Bars of one category side by side in 80 % of its width.
    let width = 0.8 / series.len().max(1) as f64;
    for (s_i, s) in series.iter().enumerate() {
        let col = color(s_i);
        let left = -0.4 + s_i as f64 * width;
        c.draw_series(
            s.points.iter().map(|&(x, y)| {
                Rectangle::new([(x + left, 0.0), (x + left + width, y)], col.filled())
            }),
        )
        .map_err(failed)?
        .label(s.label.clone())
        .legend(move |(x, y)| Rectangle::new([(x, y - 8), (x + 24, y + 8)], col.filled()));
    }
    legend(&mut c, series, SeriesLabelPosition::UpperRight)
}

fn steps<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
    series: &[Series],
    x_range: (f64, f64),
    y_range: (f64, f64),
) -> Result<()> {
    let mut c = axes(root)
        .build_cartesian_2d(x_range.0..x_range.1, y_range.0..y_range.1)
        .map_err(failed)?;
    c.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style((FONT, AXIS))
        .label_style((FONT, TICKS))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .bold_line_style(BLACK.mix(0.15))
        .max_light_lines(0)
        .draw()
        .map_err(failed)?;
    for (s_i, s) in series.iter().enumerate() {
        let col = color(s_i);
        let style = col.stroke_width(LINE);
        c.draw_series(LineSeries::new(step_path(&s.points), style))
            .map_err(failed)?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 30, y)], style));
    }
    legend(&mut c, series, SeriesLabelPosition::LowerRight)
}

/// The corners of a right-continuous step function through `points`.
pub(crate) fn step_path(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

fn markers<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
    categories: &[String],
    series: &[Series],
) -> Result<()> {
    let n = categories.len().max(1);
    let mut c = axes(root)
        .build_cartesian_2d(category_axis(n), 0.0..y_top(series))
        .map_err(failed)?;
    c.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style((FONT, AXIS))
        .label_style((FONT, TICKS))
        .x_labels(n)
        .x_label_formatter(&|v| category_label(categories, *v))
        .y_label_formatter(&|v| tick(*v))
        .bold_line_style(BLACK.mix(0.15))
        .max_light_lines(0)
        .draw()
        .map_err(failed)?;
    for (s_i, s) in series.iter().enumerate() {
        let col = color(s_i);
        let style = col.stroke_width(LINE);
        c.draw_series(LineSeries::new(s.points.iter().copied(), style))
            .map_err(failed)?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 30, y)], style));
        c.draw_series(s.points.iter().map(|&p| Circle::new(p, 6, col.filled())))
            .map_err(failed)?;
    }
    legend(&mut c, series, SeriesLabelPosition::UpperLeft)
}

struct HeatMapData<'a> {
    rows: &'a [String],
    columns: &'a [String],
    cells: &'a [Vec<Option<f64>>],
    range: (f64, f64),
    measure: &'a str,
    decimals: usize,
}

/// Where a value sits on the colour scale, in [0, 1].
fn position(v: f64, (low, high): (f64, f64)) -> f64 {
    if high > low {
        ((v - low) / (high - low)).clamp(0.0, 1.0)
    } else {
        0.5
    }
}

/// Sequential scale from pale to dark blue (printable, readable in grey);
/// a diverging red–white–blue one when the range spans negative values.
pub(crate) fn scale(v: f64, range: (f64, f64)) -> RGBColor {
    let t = position(v, range);
    let lerp = |a: RGBColor, b: RGBColor, t: f64| {
        let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
        RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    };
    let white = RGBColor(255, 255, 255);
    let blue = RGBColor(8, 48, 107);
    if range.0 < 0.0 {
        let red = RGBColor(165, 15, 21);
        let zero = position(0.0, range);
        if t < zero {
            lerp(red, white, t / zero)
        } else {
            lerp(white, blue, (t - zero) / (1.0 - zero).max(1e-12))
        }
    } else {
        // The lightest end is a pale blue, not white, so that the lowest
        // cell still stands out from the page.
        lerp(RGBColor(232, 240, 250), blue, t)
    }
}

/// Black text on light cells, white on dark (relative luminance).
fn text_on(c: RGBColor) -> RGBColor {
    let l = 0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2);
    if l > 140.0 {
        BLACK
    } else {
        WHITE
    }
}

fn heatmap<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
    d: HeatMapData<'_>,
) -> Result<()> {
    let (w, _) = root.dim_in_pixel();
    // The colour bar's width follows its longest tick label (~11 px a
    // character) plus the rotated measure name and the bar itself.
    let widest_tick = [d.range.0, d.range.1]
        .iter()
        .map(|v| tick(*v).chars().count())
        .max()
        .unwrap_or(4) as u32;
    let tick_area = widest_tick * 11 + 50;
    let (grid_area, scale_area) = root.split_horizontally(w.saturating_sub(tick_area + 75));
    let (nr, nc) = (d.rows.len().max(1), d.columns.len().max(1));
    // Row labels are attribute names or l values: room for ~18 characters.
    let longest = d.rows.iter().map(|r| r.chars().count()).max().unwrap_or(1);
    let y_area = (longest as u32 * 11 + 70).clamp(90, 260);
    // Column names wider than their cell are turned upright (~11 px per
    // character at 18 px) instead of running into each other.
    let cell_width = grid_area.dim_in_pixel().0.saturating_sub(y_area + 40) / nc as u32;
    let widest = d
        .columns
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1) as u32
        * 11;
    let upright = widest + 10 > cell_width;
    let x_area = if upright { (widest + 70).min(260) } else { 70 };
    let mut c = ChartBuilder::on(&grid_area)
        .margin(20)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(category_axis(nc), category_axis(nr))
        .map_err(failed)?;
    c.configure_mesh()
        .disable_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style((FONT, AXIS))
        .label_style((FONT, TICKS))
        .x_labels(nc)
        .y_labels(nr)
        // Upright names are drawn below, anchored at their top end:
        // plotters centres a rotated tick label on its tick, which puts
        // half of it inside the plot.
        .x_label_formatter(&|v| {
            if upright {
                String::new()
            } else {
                category_label(d.columns, *v)
            }
        })
        // The first row on top, as in a table.
        .y_label_formatter(&|v| category_label(d.rows, (nr - 1) as f64 - *v))
        .draw()
        .map_err(failed)?;
    let grey = RGBColor(200, 200, 200);
    for (i, row) in d.cells.iter().enumerate() {
        for (j, cell) in row.iter().enumerate() {
            let (x, y) = (j as f64, (nr - 1 - i) as f64);
            let fill = cell.map_or(grey, |v| scale(v, d.range));
            c.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                fill.filled(),
            )))
            .map_err(failed)?;
            let text = cell.map_or_else(|| "n/a".to_string(), |v| cell_text(v, d.decimals));
            let style = (FONT, CELL)
                .into_font()
                .color(&text_on(fill))
                .pos(Pos::new(HPos::Center, VPos::Center));
            c.draw_series(std::iter::once(Text::new(text, (x, y), style)))
                .map_err(failed)?;
        }
    }
    if upright {
        let base = grid_area.get_base_pixel();
        let style = (FONT, TICKS)
            .into_font()
            .transform(FontTransform::Rotate90)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (j, name) in d.columns.iter().enumerate() {
            let (px, py) = c.backend_coord(&(j as f64, -0.5));
            grid_area
                .draw(&Text::new(
                    name.clone(),
                    (px - base.0, py - base.1 + 8),
                    style.clone(),
                ))
                .map_err(failed)?;
        }
    }
    // Cell borders so neighbouring cells of equal colour stay apart.
    c.draw_series((0..nr).flat_map(|i| {
        (0..nc).map(move |j| {
            let (x, y) = (j as f64, i as f64);
            Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                WHITE.stroke_width(2),
            )
        })
    }))
    .map_err(failed)?;
    colour_bar(&scale_area, d.range, d.measure, tick_area)
}

/// A cell's value: large counts with thousands separators.
fn cell_text(v: f64, decimals: usize) -> String {
    if decimals == 0 && v.abs() >= 1000.0 {
        let sign = if v < 0.0 { "-" } else { "" };
        format!("{sign}{}", crate::format::thousands(v.abs().round() as u64))
    } else {
        format!("{v:.decimals$}")
    }
}

fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    range: (f64, f64),
    measure: &str,
    tick_area: u32,
) -> Result<()> {
    let (low, high) = if range.1 > range.0 {
        range
    } else {
        (range.0, range.0 + 1.0)
    };
    let mut c = ChartBuilder::on(area)
        .margin_top(40)
        .margin_bottom(90)
        .margin_right(20)
        .y_label_area_size(tick_area)
        .build_cartesian_2d(0.0..1.0, low..high)
        .map_err(failed)?;
    c.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(measure)
        .axis_desc_style((FONT, AXIS))
        .label_style((FONT, TICKS))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(failed)?;
    const STEPS: usize = 100;
    let step = (high - low) / STEPS as f64;
    c.draw_series((0..STEPS).map(|s| {
        let y = low + s as f64 * step;
        Rectangle::new(
            [(0.0, y), (1.0, y + step)],
            scale(y + step / 2.0, range).filled(),
        )
    }))
    .map_err(failed)?;
    Ok(())
}
