//! Charts for people who read them on paper: the risk and utility figures
//! rendered to SVG and PNG by plotters.
//!
//! A [`Chart`] is built from data the core computed — a simulation's
//! histogram and CDF, a release's breach CDF, per-record class sizes, a
//! correlation matrix, the simulator's prefix table, a (k, l) sweep grid —
//! by the functions of [`build`] (re-exported here). It keeps the numbers
//! it draws ([`Chart::plot`]) so tests and the report can check them, and
//! renders the same figure to either format: [`Chart::to_svg`],
//! [`Chart::to_png`], or [`Chart::write`] (format from the extension,
//! written atomically: a failed render leaves an existing file untouched).
//!
//! ```
//! use anonlab::charts;
//! use anonlab::data::Dataset;
//! use anonlab::progress::Progress;
//! use anonlab::risk::{simulate, Knowledge};
//!
//! let ds = Dataset::from_rows(
//!     &["sex", "age"],
//!     &[vec!["M", "30"], vec!["M", "30"], vec!["F", "41"]],
//! )
//! .unwrap();
//! let sim = simulate(&ds, Knowledge::plain(&[0, 1]), 0.2, &Progress::new()).unwrap();
//! let chart = charts::reid_histogram(&[("original", &sim.histogram)]).unwrap();
//! let svg = chart.to_svg().unwrap();
//! assert!(svg.contains("Pr(re-id)"));
//! ```
//!
//! Choices:
//! - **Text without system fonts.** plotters' default `ttf` feature finds
//!   fonts through font-kit and fontconfig, which a fresh CI machine may
//!   lack (and which needs a C library to build). anonlab enables plotters'
//!   `ab_glyph` feature instead and registers DejaVu Sans, embedded from
//!   `assets/fonts/DejaVuSans.ttf` (Bitstream Vera licence with public-domain
//!   DejaVu changes: redistribution allowed, licence in
//!   `assets/fonts/DejaVuSans.LICENSE`), under the family name `sans-serif`.
//!   SVG output names that family, so a viewer draws it with its own sans
//!   font; the embedded font only measures the text for layout there.
//! - **PNG in memory.** plotters draws into an RGB buffer; the `png` crate
//!   encodes it, so nothing is written until the whole image exists
//!   (plotters' own `bitmap_encoder` would pull in the `image` crate and
//!   write the file itself, not atomically).
//! - **Readable when printed**: 1200 × 720 pixels by default, titles at 30 px,
//!   axis labels at 22 px with units, ticks at 18 px, lines 3 px wide, the
//!   Okabe–Ito colour-blind-safe palette, black axes on white, a legend
//!   whenever there is more than one series, values written in heat-map
//!   cells with the text colour chosen against the cell's lightness.

pub mod build;
mod draw;

use std::path::Path;
use std::sync::Once;

use serde::Serialize;

use crate::data::{write_bytes, Inputs};
use crate::error::{Error, Parameter, Result};

pub use build::{
    breach_cdfs, class_sizes, correlation_heatmap, group_sizes, linkage_ranks, loss_per_record,
    prefix_chart, reid_cdf, reid_histogram, suppressed_by_household_size, suppressed_cells,
    sweep_heatmap, SizeBin,
};

/// Default size: wide enough for nine attribute names on one axis and
/// above the 1000 × 600 a printed page needs.
pub const DEFAULT_WIDTH: u32 = 1200;
pub const DEFAULT_HEIGHT: u32 = 720;

/// The smallest size at which the fonts above still fit their areas.
pub const MIN_WIDTH: u32 = 600;
pub const MIN_HEIGHT: u32 = 400;

/// One named line or set of bars.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub label: String,
    /// Lines: (x, y) in order. Bars: (category index, height).
    pub points: Vec<(f64, f64)>,
}

/// What a chart draws, with the numbers it draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Plot {
    /// Grouped bars: one bar per series in each category.
    Bars {
        categories: Vec<String>,
        series: Vec<Series>,
    },
    /// Step lines (CDFs: the value holds until the next point).
    Steps {
        series: Vec<Series>,
        x_range: (f64, f64),
        y_range: (f64, f64),
    },
    /// Lines with a marker at every point over categorical x positions.
    Markers {
        categories: Vec<String>,
        series: Vec<Series>,
    },
    /// A grid of cells coloured by value; `None` is drawn as an empty grey
    /// cell (not computed, infeasible, or undefined).
    HeatMap {
        rows: Vec<String>,
        columns: Vec<String>,
        cells: Vec<Vec<Option<f64>>>,
        /// The colour scale's ends (a diverging scale when `low < 0`).
        range: (f64, f64),
        /// What the colour means, for the scale's label.
        measure: String,
        /// Decimals of the values written in the cells.
        decimals: usize,
    },
}

/// A figure: title, axis descriptions (with units) and the plot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub plot: Plot,
    pub width: u32,
    pub height: u32,
}

/// Output format, chosen from the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// `.svg` or `.png` (any case); anything else is refused naming the file.
    pub fn from_path(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(Error::invalid(
                Parameter::Output,
                format!(
                    "{}: a chart is written as .svg or .png; the extension chooses the format",
                    path.display()
                ),
            )),
        }
    }
}

impl Chart {
    /// A different size (e.g. for a report column); refused below
    /// [`MIN_WIDTH`] × [`MIN_HEIGHT`], where the text no longer fits.
    pub fn with_size(mut self, width: u32, height: u32) -> Result<Chart> {
        Self::check_size(width, height)?;
        self.width = width;
        self.height = height;
        Ok(self)
    }

    /// Refuse a size [`Self::with_size`] would refuse, before any work.
    pub fn check_size(width: u32, height: u32) -> Result<()> {
        if width < MIN_WIDTH || height < MIN_HEIGHT || width > 10_000 || height > 10_000 {
            return Err(Error::invalid(Parameter::ChartSize, format!(
                "chart size {width}×{height}: it must be between {MIN_WIDTH}×{MIN_HEIGHT} and 10000×10000 pixels"
            )));
        }
        Ok(())
    }

    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String> {
        register_font();
        let mut out = String::new();
        {
            let backend =
                plotters::prelude::SVGBackend::with_string(&mut out, (self.width, self.height));
            draw::draw(self, backend)?;
        }
        Ok(out)
    }

    /// The chart as PNG bytes (8-bit RGB).
    pub fn to_png(&self) -> Result<Vec<u8>> {
        register_font();
        let (w, h) = (self.width, self.height);
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let backend = plotters::prelude::BitMapBackend::with_buffer(&mut rgb, (w, h));
            draw::draw(self, backend)?;
        }
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let png_error = |e: png::EncodingError| Error::Internal(format!("encoding PNG: {e}"));
        let mut writer = encoder.write_header().map_err(png_error)?;
        writer.write_image_data(&rgb).map_err(png_error)?;
        writer.finish().map_err(png_error)?;
        Ok(bytes)
    }

    /// Write as SVG through `data::output` (never over one of `inputs`).
    pub fn write_svg(&self, path: &Path, inputs: &Inputs) -> Result<()> {
        write_bytes(path, inputs, self.to_svg()?.as_bytes())
    }

    /// Write as PNG through `data::output` (never over one of `inputs`).
    pub fn write_png(&self, path: &Path, inputs: &Inputs) -> Result<()> {
        write_bytes(path, inputs, &self.to_png()?)
    }

    /// Write as SVG or PNG by the path's extension (never over one of
    /// `inputs`).
    pub fn write(&self, path: &Path, inputs: &Inputs) -> Result<Format> {
        let format = Format::from_path(path)?;
        match format {
            Format::Svg => self.write_svg(path, inputs)?,
            Format::Png => self.write_png(path, inputs)?,
        }
        Ok(format)
    }
}

/// The family every chart's text uses; registered from the embedded font.
pub(crate) const FONT: &str = "sans-serif";

static FONT_BYTES: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The bytes are a font file shipped with the source, so a parse
        // failure means a broken checkout; it is not a panic here but a
        // "FontUnavailable" drawing error from every render, naming no font.
        let _ =
            plotters::style::register_font(FONT, plotters::style::FontStyle::Normal, FONT_BYTES);
    });
}
