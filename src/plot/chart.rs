//! One figure: lines of points (with optional error bars) on linear or log
//! axes, rendered with plotters to PNG and SVG.
//!
//! Sized for a paper's column: 1050 x 700 px, which is 3.5 in at 300 dpi,
//! with 30 px labels (7 pt at that width). The legend sits in a strip to
//! the right of the plot area, never over data. Text is drawn with the
//! DejaVu Sans file compiled into the binary (`assets/fonts/`), so a figure
//! renders the same on every machine without a system font library.

use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::coord::combinators::{IntoLogRange, LogCoord};
use plotters::coord::ranged1d::{
    AsRangedCoord, KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Figure width and height in pixels.
pub const SIZE: (u32, u32) = (1050, 700);
const FONT: &str = "sans-serif";
const LABEL_PX: u32 = 30;
const TICK_PX: u32 = 26;
const TITLE_PX: u32 = 32;

/// Okabe and Ito's colour-blind-safe palette (black moved last).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The x axis.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// Numbers, with a label naming the unit.
    Numeric {
        /// The axis label.
        label: String,
        /// Log scale (non-positive values are left out).
        log: bool,
    },
    /// Named positions 0, 1, 2, ... (a swept value that is not a number).
    Categories {
        /// The axis label.
        label: String,
        /// The name of each position.
        names: Vec<String>,
        /// A second, smaller line under each name (e.g. `n=1200`, the
        /// flows in a size bin); empty for none.
        notes: Vec<String>,
    },
}

/// One point; `err` is the (low, high) end of its error bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// x (a category's position for categorical axes).
    pub x: f64,
    /// y.
    pub y: f64,
    /// The error bar's ends, if any.
    pub err: Option<(f64, f64)>,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A line through the points (time series, CDFs).
    Line,
    /// A line with a marker at each point (a metric against a swept value).
    Markers,
    /// A marker at each point and no line: values of unordered
    /// categories (a sweep's cases), which a line would seem to connect.
    Points,
    /// A step function that rises at each point from the previous y (0
    /// before the first): an empirical CDF, drawn as the steps it is, so
    /// that one flow is a jump to 1 rather than a point nothing draws.
    Steps,
}

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its name in the legend (a chart of one unnamed series has no legend).
    pub name: String,
    /// Its points, in drawing order.
    pub points: Vec<Point>,
}

/// One figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The title above the plot.
    pub title: String,
    /// The x axis.
    pub x: XAxis,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// Log y (non-positive values are left out).
    pub y_log: bool,
    /// How the series are drawn.
    pub style: Style,
    /// The lines.
    pub series: Vec<Series>,
    /// The x range to draw instead of the data's own (a sweep's figures
    /// that sit side by side share one); padded as the data's would be.
    pub x_range: Option<(f64, f64)>,
    /// The y range to draw instead of the data's own, as `x_range`.
    pub y_range: Option<(f64, f64)>,
    /// Events drawn as markers alone over the lines (a timeline's marks
    /// and drops, a sequence plot's retransmissions), named in the legend
    /// after them.
    pub marks: Vec<Series>,
}

/// Which files to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Formats {
    /// `NAME.png`.
    pub png: bool,
    /// `NAME.svg`.
    pub svg: bool,
}

impl Formats {
    /// Both.
    pub const BOTH: Formats = Formats {
        png: true,
        svg: true,
    };
}

/// A figure could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// Drawing failed.
    #[error("drawing {file}: {why}")]
    Draw {
        /// The file.
        file: PathBuf,
        /// What plotters said.
        why: String,
    },
    /// Writing failed.
    #[error("writing {file}: {cause}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause (not a `source`: the message already says it, once).
        cause: std::io::Error,
    },
}

/// Registers the embedded font once per process.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        static DEJAVU: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU)
            .unwrap_or_else(|_| panic!("the embedded font is a valid TrueType file"));
    });
}

impl Chart {
    /// Lines over a linear x axis (a time series): its own ranges, no marks.
    pub fn lines(
        title: String,
        x_label: String,
        y_label: String,
        y_log: bool,
        series: Vec<Series>,
    ) -> Chart {
        Chart {
            title,
            x: XAxis::Numeric {
                label: x_label,
                log: false,
            },
            y_label,
            y_log,
            style: Style::Line,
            series,
            x_range: None,
            y_range: None,
            marks: Vec::new(),
        }
    }

    /// Whether it has anything to draw.
    pub fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.points.is_empty())
    }

    /// Renders to `stem.png` and/or `stem.svg` (each written atomically);
    /// returns the files written.
    pub fn render(&self, stem: &Path, formats: Formats) -> Result<Vec<PathBuf>, ChartError> {
        register_font();
        let mut written = Vec::new();
        if formats.svg {
            let file = stem.with_extension("svg");
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
                self.draw(&root).map_err(|why| ChartError::Draw {
                    file: file.clone(),
                    why,
                })?;
            }
            write(&file, text.as_bytes())?;
            written.push(file);
        }
        if formats.png {
            let file = stem.with_extension("png");
            let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
                self.draw(&root).map_err(|why| ChartError::Draw {
                    file: file.clone(),
                    why,
                })?;
            }
            let mut png = Vec::new();
            image::codecs::png::PngEncoder::new(&mut png)
                .write_image(&rgb, SIZE.0, SIZE.1, image::ColorType::Rgb8)
                .map_err(|e| ChartError::Draw {
                    file: file.clone(),
                    why: e.to_string(),
                })?;
            write(&file, &png)?;
            written.push(file);
        }
        Ok(written)
    }

    /// The points that can be drawn (positive where an axis is log).
    fn drawable(&self, p: &Point) -> bool {
        let x_log = matches!(self.x, XAxis::Numeric { log: true, .. });
        p.x.is_finite() && p.y.is_finite() && (!x_log || p.x > 0.0) && (!self.y_log || p.y > 0.0)
    }

    /// The line through series `s` as drawn: its drawable points; on a
    /// log y axis a time series' zeros (an empty queue) at the axis floor
    /// instead of left out (which drew a slow decline to the next sample);
    /// a step function's steps.
    fn path(&self, s: &Series, y_floor: f64) -> Vec<(f64, f64)> {
        let floor_zeros = self.y_log && self.style == Style::Line;
        let xy = s.points.iter().filter_map(|p| {
            let p = if floor_zeros && p.y <= 0.0 {
                Point { y: y_floor, ..*p }
            } else {
                *p
            };
            self.drawable(&p).then_some((p.x, p.y))
        });
        if self.style != Style::Steps {
            return xy.collect();
        }
        let mut out = Vec::new();
        let mut last_y = if self.y_log { y_floor } else { 0.0 };
        for (x, y) in xy {
            out.push((x, last_y));
            out.push((x, y));
            last_y = y;
        }
        out
    }

    /// The data's own range on each axis (drawable points, error bars
    /// included; a step function's 0), unpadded; `None` for no data.
    pub fn data_ranges(&self) -> Option<((f64, f64), (f64, f64))> {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in self
            .series
            .iter()
            .chain(&self.marks)
            .flat_map(|s| &s.points)
        {
            if !self.drawable(p) {
                continue;
            }
            x0 = x0.min(p.x);
            x1 = x1.max(p.x);
            let (lo, hi) = p.err.unwrap_or((p.y, p.y));
            y0 = y0
                .min(p.y)
                .min(if self.y_log && lo <= 0.0 { p.y } else { lo });
            y1 = y1.max(p.y).max(hi);
        }
        if x0 > x1 {
            return None;
        }
        if self.style == Style::Steps && !self.y_log {
            y0 = y0.min(0.0);
        }
        Some(((x0, x1), (y0, y1)))
    }

    /// The range of each axis as drawn: the data's (or the chart's
    /// shared range), padded.
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let ((x0, x1), (y0, y1)) = self.data_ranges().unwrap_or(((0.0, 1.0), (0.0, 1.0)));
        let (x0, x1) = self.x_range.unwrap_or((x0, x1));
        let (y0, y1) = self.y_range.unwrap_or((y0, y1));
        let x = match &self.x {
            XAxis::Categories { names, .. } => (-0.5, names.len().max(1) as f64 - 0.5),
            XAxis::Numeric { log: true, .. } => pad_log(x0, x1),
            XAxis::Numeric { log: false, .. } => pad_linear(x0, x1, false),
        };
        let y = if self.y_log {
            pad_log(y0, y1)
        } else {
            pad_linear(y0, y1, true)
        };
        (x, y)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let ((x0, x1), (y0, y1)) = self.ranges();
        let x_log = matches!(self.x, XAxis::Numeric { log: true, .. });
        let xt = match &self.x {
            XAxis::Categories { names, .. } => Ticks::categories(names),
            XAxis::Numeric { log, .. } => Ticks::of(x0, x1, *log),
        };
        let yt = Ticks::of(y0, y1, self.y_log);
        let lin = |lo: f64, hi: f64, t: &Ticks| Keyed {
            inner: RangedCoordf64::from(lo..hi),
            keys: t.at.clone(),
        };
        let log = |lo: f64, hi: f64, t: &Ticks| Keyed {
            inner: LogCoord::<f64>::from((lo..hi).log_scale()),
            keys: t.at.clone(),
        };
        match (x_log, self.y_log) {
            (false, false) => self.draw_in(root, lin(x0, x1, &xt), lin(y0, y1, &yt), &xt, &yt),
            (true, false) => self.draw_in(root, log(x0, x1, &xt), lin(y0, y1, &yt), &xt, &yt),
            (false, true) => self.draw_in(root, lin(x0, x1, &xt), log(y0, y1, &yt), &xt, &yt),
            (true, true) => self.draw_in(root, log(x0, x1, &xt), log(y0, y1, &yt), &xt, &yt),
        }
        .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    }

    fn draw_in<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        x: X,
        y: Y,
        xt: &Ticks,
        yt: &Ticks,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend,
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let legend_px = self.legend_px();
        let (plot_area, legend_area) = root.split_horizontally(SIZE.0 - legend_px);
        let (title, title_px) = self.title_and_px(legend_px);
        let notes = match &self.x {
            XAxis::Categories { notes, .. } => notes.as_slice(),
            XAxis::Numeric { .. } => &[],
        };
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(&title, (FONT, title_px))
            .margin(16)
            .x_label_area_size(LABEL_PX * if notes.is_empty() { 3 } else { 4 })
            .y_label_area_size(LABEL_PX * 4)
            .build_cartesian_2d(x, y)?;
        let (x_label, categories) = match &self.x {
            XAxis::Numeric { label, .. } => (label.as_str(), None),
            XAxis::Categories { label, names, .. } => (label.as_str(), Some(names)),
        };
        let y_tick = |v: &f64| yt.label(*v);
        let category = |v: &f64| xt.label(*v);
        // Category names shrink to fit their share of the axis (about
        // 0.6 em a character), so that neighbours never run together.
        let x_tick_px = match categories {
            Some(names) if !names.is_empty() => {
                let share = chart.plotting_area().dim_in_pixel().0 / names.len() as u32;
                let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(1);
                (share.saturating_sub(8) * 10 / (6 * longest.max(1) as u32)).clamp(12, TICK_PX)
            }
            _ => TICK_PX,
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_label)
            .y_desc(&self.y_label)
            .axis_desc_style((FONT, LABEL_PX))
            .label_style((FONT, TICK_PX))
            .x_label_style((FONT, x_tick_px))
            .x_label_formatter(&category)
            .y_label_formatter(&y_tick)
            .light_line_style(TRANSPARENT)
            .bold_line_style(RGBColor(225, 225, 225));
        mesh.x_labels(xt.at.len().max(2))
            .y_labels(yt.at.len().max(2));
        mesh.draw()?;
        // Each category's note, in a smaller face under its name.
        let (y_low, _) = self.ranges().1;
        for (i, note) in notes.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64, y_low));
            let face = (FONT, TICK_PX * 3 / 4)
                .into_font()
                .color(&RGBColor(90, 90, 90));
            let width = note.chars().count() as i32 * (TICK_PX as i32 * 3 / 4) * 55 / 100;
            plot_area.draw(&Text::new(
                note.clone(),
                (px - width / 2, py + TICK_PX as i32 + 14),
                face,
            ))?;
        }
        let y_floor = y_low;
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let xy = self.path(s, y_floor);
            // Colour and dash tell series apart: a dashed line drawn over
            // an equal solid one still shows both.
            match dash(i) {
                _ if self.style == Style::Points => {}
                None => {
                    chart.draw_series(LineSeries::new(xy, color.stroke_width(3)))?;
                }
                Some((on, off)) => {
                    chart.draw_series(DashedLineSeries::new(xy, on, off, color.stroke_width(3)))?;
                }
            }
            let points: Vec<&Point> = s.points.iter().filter(|p| self.drawable(p)).collect();
            // Error bars as lines (plotters' own puts a circle on every
            // point, over the series' marker), then the markers on top.
            for p in &points {
                let Some((lo, hi)) = p.err else { continue };
                let lo = if self.y_log && lo <= 0.0 { p.y } else { lo };
                let (px, top) = chart.backend_coord(&(p.x, hi));
                let (_, bottom) = chart.backend_coord(&(p.x, lo));
                let bar = color.stroke_width(2);
                root.draw(&PathElement::new(vec![(px, top), (px, bottom)], bar))?;
                for y in [top, bottom] {
                    root.draw(&PathElement::new(vec![(px - 6, y), (px + 6, y)], bar))?;
                }
            }
            if matches!(self.style, Style::Markers | Style::Points) {
                for p in &points {
                    let at = chart.backend_coord(&(p.x, p.y));
                    draw_marker(root, i, at, color)?;
                }
            }
        }
        // Marks after the lines, each its own colour and marker shape.
        let lines = self.series.len();
        for (j, s) in self.marks.iter().enumerate() {
            let color = PALETTE[(lines + j) % PALETTE.len()];
            for p in s.points.iter().filter(|p| self.drawable(p)) {
                draw_marker(root, lines + j, chart.backend_coord(&(p.x, p.y)), color)?;
            }
        }
        self.draw_legend(root, &legend_area, legend_px)
    }

    /// The legend strip's width: none without a named series, else about
    /// 0.6 em per character of the longest name, plus the line sample and
    /// margins, at most a third of the figure.
    fn legend_px(&self) -> u32 {
        let longest = self
            .series
            .iter()
            .chain(&self.marks)
            .map(|s| s.name.chars().count())
            .filter(|&n| n > 0)
            .max();
        longest.map_or(0, |n| (n as u32 * TICK_PX * 6 / 10 + 90).min(SIZE.0 / 3))
    }

    /// The title and its size: a series of zeros alone would look like a
    /// missing plot, so the title says so; a long title shrinks to fit
    /// above the plot (about 0.55 em a character).
    fn title_and_px(&self, legend_px: u32) -> (String, u32) {
        let all_zero = self
            .series
            .iter()
            .flat_map(|s| &s.points)
            .filter(|p| self.drawable(p))
            .all(|p| p.y == 0.0)
            && !self.is_empty();
        let title = if all_zero {
            format!("{} (every value 0)", self.title)
        } else {
            self.title.clone()
        };
        let chars = title.chars().count().max(1) as u32;
        let title_px = TITLE_PX
            .min((SIZE.0 - legend_px - 40) * 100 / (55 * chars))
            .max(14);
        (title, title_px)
    }

    /// The legend, in the strip `legend_area` of `legend_px`: it names
    /// what is drawn (a series with no drawable point, all of it off a log
    /// axis, is left out), each with its line sample or marker.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        legend_area: &DrawingArea<DB, Shift>,
        legend_px: u32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let lines = self.series.len();
        let shown = self
            .series
            .iter()
            .chain(&self.marks)
            .enumerate()
            .filter(|(_, s)| !s.name.is_empty() && s.points.iter().any(|p| self.drawable(p)));
        for (row_n, (i, s)) in shown.enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let row = 60 + row_n as i32 * (TICK_PX as i32 * 3 / 2);
            let mark = i >= lines;
            let (on, off) = dash(i).map_or((40, 0), |(on, off)| (on as i32, off as i32));
            let mut x = 8;
            while x < 48 && !mark {
                let end = (x + on).min(48);
                legend_area.draw(&PathElement::new(
                    vec![(x, row), (end, row)],
                    color.stroke_width(4),
                ))?;
                x = end + off.max(1);
            }
            if mark || matches!(self.style, Style::Markers | Style::Points) {
                let (dx, dy) = legend_area.get_base_pixel();
                draw_marker(root, i, (dx + 28, dy + row), color)?;
            }
            // A name longer than the strip (capped at a third of the
            // figure) is set smaller rather than cut off at the edge.
            let chars = s.name.chars().count().max(1) as u32;
            let fits_px = legend_px.saturating_sub(64) * 10 / (6 * chars);
            let font_px = TICK_PX.min(fits_px.max(TICK_PX / 2));
            legend_area.draw(&Text::new(
                s.name.clone(),
                (56, row - font_px as i32 / 2),
                (FONT, font_px).into_font().color(&BLACK),
            ))?;
        }
        Ok(())
    }
}

/// Series `i`'s marker at pixel `at` of `root`: circle, triangle, square
/// and cross in turn, so that equal series stay visible and a legend entry
/// matches its line in print without colour.
fn draw_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    i: usize,
    at: (i32, i32),
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = at;
    match i % 4 {
        0 => root.draw(&Circle::new(at, 7, color.filled())),
        1 => root.draw(&TriangleMarker::new(at, 9, color.filled())),
        2 => root.draw(&Rectangle::new(
            [(x - 6, y - 6), (x + 6, y + 6)],
            color.filled(),
        )),
        _ => root.draw(&Cross::new(at, 7, color.stroke_width(3))),
    }
}

/// Whether the positive values span more than two decades: such an axis
/// reads better on a log scale (FCT, slowdown, a queue under incast).
pub fn spans_decades<I: IntoIterator<Item = f64>>(values: I) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values {
        if v.is_finite() && v > 0.0 {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    hi > 100.0 * lo
}

/// Series `i`'s dash (pixels on, off): solid, dashes, dots and long
/// dashes in turn, as the markers cycle through four shapes, so that the
/// first four series (equal ones too: an equal solid line under a dashed
/// one shows through its gaps) never share a dash.
fn dash(i: usize) -> Option<(u32, u32)> {
    match i % 4 {
        0 => None,
        1 => Some((12, 6)),
        2 => Some((4, 4)),
        _ => Some((24, 8)),
    }
}

/// A plotters axis with the ticks of [`Ticks`] as its key points.
struct Keyed<R> {
    inner: R,
    keys: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Keyed<R> {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.keys.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> std::ops::Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

/// Never used for a label: every axis sets its own formatter.
impl<R> ValueFormatter<f64> for Keyed<R> {
    fn format(value: &f64) -> String {
        value.to_string()
    }
}

/// An axis's tick positions and their labels. Plotters' own key points
/// left a log axis inside one decade without a label and printed neighbours
/// of a fine linear axis alike (`0.001` seven times); these are chosen
/// here, each labelled with the digits its step needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    /// Where the ticks are, in data units.
    pub at: Vec<f64>,
    /// Each tick's label.
    pub labels: Vec<String>,
}

/// About how many ticks an axis gets.
const TICKS_WANTED: f64 = 6.0;

impl Ticks {
    /// The ticks of a numeric axis over `[lo, hi]`.
    pub fn of(lo: f64, hi: f64, log: bool) -> Ticks {
        if log
            && lo > 0.0
            && hi > lo
            && let Some(t) = log_ticks(lo, hi)
        {
            return t;
        }
        linear_ticks(lo, hi)
    }

    /// One tick per category, at 0, 1, 2, ...
    pub fn categories(names: &[String]) -> Ticks {
        Ticks {
            at: (0..names.len()).map(|i| i as f64).collect(),
            labels: names.to_vec(),
        }
    }

    /// The label of the tick at `v` (empty between ticks).
    pub fn label(&self, v: f64) -> String {
        self.at
            .iter()
            .position(|t| (t - v).abs() <= 1e-9 * t.abs().max(1e-300))
            .map(|i| self.labels[i].clone())
            .unwrap_or_default()
    }
}

/// Ticks every 1, 2 or 5 times a power of ten, about `TICKS_WANTED` of
/// them, each with as many decimals as the step has.
fn linear_ticks(lo: f64, hi: f64) -> Ticks {
    let span = hi - lo;
    if span.is_nan() || span <= 0.0 || !span.is_finite() {
        return Ticks {
            at: vec![lo],
            labels: vec![number_with(lo, 0.0)],
        };
    }
    let raw = span / TICKS_WANTED;
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = libm::ceil(lo / step - 1e-9);
    let at: Vec<f64> = (0..)
        .map(|i| (first + i as f64) * step)
        .take_while(|v| *v <= hi + step * 1e-9)
        .take(100)
        .map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v })
        .collect();
    let labels = at.iter().map(|v| number_with(*v, step)).collect();
    Ticks { at, labels }
}

/// Ticks of a log axis: the powers of ten if at least three lie in range
/// (every other one past eight), else 1, 2 and 5 times them, else every
/// digit times them; `None` if fewer than two would (a range inside one
/// step: the caller falls back to linear ticks).
fn log_ticks(lo: f64, hi: f64) -> Option<Ticks> {
    let first = libm::floor(libm::log10(lo)) as i32;
    let last = libm::ceil(libm::log10(hi)) as i32;
    let inside = |mantissas: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| {
                mantissas
                    .iter()
                    .map(move |m| m * libm::pow(10.0, f64::from(e)))
            })
            .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
            .collect()
    };
    let decades = inside(&[1.0]);
    let at = if decades.len() >= 3 {
        let every = decades.len().div_ceil(8);
        decades.into_iter().step_by(every).collect()
    } else {
        let v = inside(&[1.0, 2.0, 5.0]);
        if v.len() >= 3 {
            v
        } else {
            inside(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        }
    };
    if at.len() < 2 {
        return None;
    }
    let labels = at.iter().map(|v| number_with(*v, v * 0.1)).collect();
    Some(Ticks { at, labels })
}

/// `v` with the decimals a tick step of `step` needs (none for a step of
/// 1 or more), thousands and millions shortened (`1.5k`, `2M`).
fn number_with(v: f64, step: f64) -> String {
    let a = v.abs();
    let (scaled, suffix, step) = if a >= 1e9 {
        (v / 1e9, "G", step / 1e9)
    } else if a >= 1e6 {
        (v / 1e6, "M", step / 1e6)
    } else if a >= 1e4 {
        (v / 1e3, "k", step / 1e3)
    } else {
        (v, "", step)
    };
    let decimals = if step > 0.0 && step < 1.0 {
        (-libm::floor(libm::log10(step) + 1e-9)).clamp(0.0, 12.0) as usize
    } else {
        0
    };
    let text = format!("{scaled:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    let text = if text == "-0" { "0".to_string() } else { text };
    format!("{text}{suffix}")
}

fn pad_linear(lo: f64, hi: f64, from_zero: bool) -> (f64, f64) {
    let (lo, hi) = if from_zero && lo >= 0.0 {
        (0.0, hi)
    } else {
        (lo, hi)
    };
    if hi <= lo {
        // One value: an all-zero series stands on [0, 1], not [-1, 1];
        // another on a band around it.
        if lo == 0.0 {
            return (0.0, 1.0);
        }
        let d = lo.abs() * 0.1;
        return (lo - d, hi + d);
    }
    let d = (hi - lo) * 0.05;
    (if from_zero && lo == 0.0 { 0.0 } else { lo - d }, hi + d)
}

fn pad_log(lo: f64, hi: f64) -> (f64, f64) {
    if lo <= 0.0 || hi <= 0.0 {
        return (1.0, 10.0);
    }
    if hi <= lo {
        return (lo / 2.0, hi * 2.0);
    }
    (lo / 1.2, hi * 1.2)
}

/// Figures are written atomically but not synced: they can be drawn again.
fn write(file: &Path, bytes: &[u8]) -> Result<(), ChartError> {
    crate::report::write_replace(file, bytes).map_err(|cause| ChartError::Io {
        file: file.to_path_buf(),
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_two_decades_asks_for_a_log_axis() {
        assert!(spans_decades([0.0, 1.0, 101.0]));
        assert!(!spans_decades([0.0, 1.0, 100.0]));
        assert!(!spans_decades([0.0, -5.0]));
    }

    #[test]
    fn a_single_value_gets_a_sensible_range() {
        assert_eq!(pad_linear(0.0, 0.0, true), (0.0, 1.0), "all zero: 0 to 1");
        let (lo, hi) = pad_linear(5.0, 5.0, false);
        assert!(lo < 5.0 && hi > 5.0);
    }

    #[test]
    fn tick_labels_are_short_and_as_precise_as_their_step() {
        assert_eq!(number_with(0.25, 0.05), "0.25");
        assert_eq!(number_with(1500.0, 500.0), "1500");
        assert_eq!(number_with(15000.0, 5000.0), "15k");
        assert_eq!(number_with(2e6, 1e6), "2M");
        assert_eq!(number_with(-0.0, 0.1), "0");
        assert_eq!(number_with(0.0001, 0.00001), "0.0001");
        assert_eq!(number_with(3.0, 1.0), "3");
    }

    /// ABQ's scale figures labelled seven x ticks "0.001".
    #[test]
    fn a_fine_linear_axis_labels_every_tick_differently() {
        let t = Ticks::of(0.00043, 0.00112, false);
        assert!(t.at.len() >= 3, "{t:?}");
        let mut labels = t.labels.clone();
        labels.dedup();
        assert_eq!(labels.len(), t.labels.len(), "{t:?}");
        assert!(
            t.at.iter().all(|v| (0.00043..=0.00112).contains(v)),
            "{t:?}"
        );
    }

    /// A log axis over 1.3-5 ms had no tick inside its range, so no label.
    #[test]
    fn a_log_axis_inside_one_decade_still_has_labelled_ticks() {
        for (lo, hi) in [(1.3, 5.0), (1300.0, 5000.0), (12.0, 23.0), (0.002, 0.0031)] {
            let t = Ticks::of(lo, hi, true);
            assert!(t.at.len() >= 2, "{lo}-{hi}: {t:?}");
            assert!(t.at.iter().all(|v| *v >= lo && *v <= hi), "{t:?}");
            assert!(t.labels.iter().all(|l| !l.is_empty()), "{t:?}");
        }
        let wide = Ticks::of(0.5, 5e4, true);
        assert_eq!(wide.labels, ["1", "10", "100", "1000", "10k"]);
        // The chart draws them: the SVG holds each label as text.
        let svg = svg_of(&chart(
            true,
            vec![line("a", &[(1.0, 1300.0), (2.0, 5000.0)])],
        ));
        let t = Ticks::of(1300.0 / 1.2, 5000.0 * 1.2, true);
        for l in &t.labels {
            assert!(svg.contains(&format!(">\n{l}\n</text>")), "{l} missing");
        }
    }

    /// Plotters' error bars drew a circle on every point, over the
    /// triangle and square markers of the second and third series.
    #[test]
    fn each_series_keeps_its_marker_under_error_bars() {
        let with_bars = |name: &str, y: f64| Series {
            name: name.into(),
            points: (0..3)
                .map(|i| Point {
                    x: f64::from(i),
                    y,
                    err: Some((y - 1.0, y + 1.0)),
                })
                .collect(),
        };
        let svg = svg_of(&Chart {
            style: Style::Markers,
            ..chart(
                false,
                vec![
                    with_bars("a", 5.0),
                    with_bars("b", 10.0),
                    with_bars("c", 15.0),
                ],
            )
        });
        // Three circles on the first series and one in the legend; no more.
        assert_eq!(svg.matches("<circle").count(), 4, "{svg}");
    }

    /// An empty queue on a log axis drew a slow decline to the next
    /// sample; it now sits on the axis floor.
    #[test]
    fn a_log_time_series_draws_its_zeros_on_the_floor() {
        let c = chart(
            true,
            vec![line(
                "q",
                &[(0.0, 100.0), (1.0, 0.0), (2.0, 0.0), (3.0, 50.0)],
            )],
        );
        let path = c.path(&c.series[0], 0.5);
        assert_eq!(path, [(0.0, 100.0), (1.0, 0.5), (2.0, 0.5), (3.0, 50.0)]);
    }

    #[test]
    fn the_first_four_series_have_four_dashes() {
        let d: Vec<_> = (0..4).map(dash).collect();
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(d[i], d[j], "series {i} and {j}");
            }
        }
    }

    /// A CDF is a step function; one flow is a jump from 0 to 1.
    #[test]
    fn a_cdf_is_drawn_as_steps() {
        let mut c = chart(false, vec![line("one", &[(4.0, 1.0)])]);
        c.style = Style::Steps;
        assert_eq!(c.path(&c.series[0], 0.0), [(4.0, 0.0), (4.0, 1.0)]);
        c.series[0] = line("two", &[(1.0, 0.5), (3.0, 1.0)]);
        assert_eq!(
            c.path(&c.series[0], 0.0),
            [(1.0, 0.0), (1.0, 0.5), (3.0, 0.5), (3.0, 1.0)]
        );
        assert_eq!(c.data_ranges(), Some(((1.0, 3.0), (0.0, 1.0))));
    }

    /// A sharp spike (a controller's rate starting at line rate) stays
    /// inside the frame: no pixel of the line's colour above the plot.
    #[test]
    fn a_spike_stays_inside_the_frame() {
        let mut pts = vec![(0.0, 5.0)];
        for i in 0..400 {
            let t = 1.0 + f64::from(i) * 0.01;
            pts.push((t, if i % 97 == 1 { 100.0 } else { 5.0 }));
        }
        let c = chart(false, vec![line("rate", &pts)]);
        let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
            c.draw(&root).unwrap();
        }
        let blue = PALETTE[0];
        // The frame's top is below the title: 16 px of margin and the
        // caption; the line's colour may not appear in the top 50 rows.
        for y in 0..50u32 {
            for x in 0..SIZE.0 {
                let i = ((y * SIZE.0 + x) * 3) as usize;
                assert!(
                    !(rgb[i] == blue.0 && rgb[i + 1] == blue.1 && rgb[i + 2] == blue.2),
                    "the line at ({x}, {y}), above the frame"
                );
            }
        }
    }

    fn line(name: &str, xy: &[(f64, f64)]) -> Series {
        Series {
            name: name.into(),
            points: xy.iter().map(|&(x, y)| Point { x, y, err: None }).collect(),
        }
    }

    fn chart(y_log: bool, series: Vec<Series>) -> Chart {
        Chart::lines("t".into(), "x".into(), "y".into(), y_log, series)
    }

    fn svg_of(c: &Chart) -> String {
        register_font();
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
            c.draw(&root).unwrap();
        }
        text
    }
}
