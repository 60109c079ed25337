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

use super::raster::Raster;
use ab_glyph::Font as _;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Figure width and height in pixels.
pub const SIZE: (u32, u32) = (1050, 700);
/// The bundled face's own name: an SVG asks its viewer for it by name.
const FONT: &str = "DejaVu Sans";
/// DejaVu Sans 2.37 (Bitstream Vera licence), set in every figure.
static DEJAVU: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
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
    /// Bars along x: a series' points in pairs, each pair (start, end) at
    /// one y a filled bar (a rank's compute and communication over time),
    /// each series in its own band of the row so that overlaps show.
    Spans,
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
    /// Lines of theory, not measurement (a collective's bound): thin,
    /// grey, solid and without markers, under the data so that they never
    /// hide a scheme, named last in the legend.
    pub references: Vec<Series>,
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
            references: Vec::new(),
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
                let root = png_backend(&mut rgb).into_drawing_area();
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
        if self.style == Style::Spans {
            return Vec::new(); // bars, drawn by draw_spans
        }
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
            .chain(&self.references)
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
        if self.style == Style::Spans {
            // A row's bands reach half a row either side.
            (y0, y1) = (y0 - 0.5, y1 + 0.5);
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
        // The title over the whole width, the legend strip under it to
        // the right of the plot.
        let legend_px = self.legend_px();
        let title = self.title_lines();
        let title_row = TITLE_PX * 5 / 4;
        let (title_area, body) = root.split_vertically(16 + title.len() as u32 * title_row);
        let (plot_area, legend_area) = body.split_horizontally(SIZE.0 - legend_px);
        let title_face = (FONT, TITLE_PX).into_font().color(&BLACK);
        for (k, line) in title.iter().enumerate() {
            let pos = (SIZE.0 as i32 / 2, 12 + (k as u32 * title_row) as i32);
            let anchor = Pos::new(HPos::Center, VPos::Top);
            title_area.draw(&Text::new(line.clone(), pos, title_face.pos(anchor)))?;
        }
        let notes = match &self.x {
            XAxis::Categories { notes, .. } => notes.as_slice(),
            XAxis::Numeric { .. } => &[],
        };
        let mut chart = ChartBuilder::on(&plot_area)
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
            // In the root's pixels, as `backend_coord` gives them.
            root.draw(&Text::new(
                note.clone(),
                (px - width / 2, py + TICK_PX as i32 + 14),
                face,
            ))?;
        }
        self.draw_data(root, &mut chart, y_low)?;
        self.draw_legend(root, &legend_area, legend_px)
    }

    /// The references, the series (lines, markers, error bars) and the
    /// marks, in that order, on `chart`; `y_floor` is the y axis' low end.
    fn draw_data<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
        y_floor: f64,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        // Theory first, under the data.
        for s in &self.references {
            let xy = self.path(s, y_floor);
            let color = self.reference_color(s);
            chart.draw_series(LineSeries::new(xy, color.stroke_width(2)))?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let xy = self.path(s, y_floor);
            // Colour and dash tell series apart: a dashed line drawn over
            // an equal solid one still shows both.
            if self.style == Style::Spans {
                self.draw_spans(root, chart, i, color)?;
                continue;
            }
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
            if matches!(self.style, Style::Markers | Style::Points) {
                for p in &points {
                    let at = chart.backend_coord(&(p.x, p.y));
                    draw_marker(root, i, at, color, true)?;
                }
            }
            // Error bars over the markers, in a darker shade of the
            // series' colour, so that a seed range shorter than its
            // marker still shows (plotters' own put a circle on every
            // point, over the series' marker).
            let bar = darker(color).stroke_width(2);
            for p in &points {
                let Some((lo, hi)) = p.err else { continue };
                let lo = if self.y_log && lo <= 0.0 { p.y } else { lo };
                let (px, top) = chart.backend_coord(&(p.x, hi));
                let (_, bottom) = chart.backend_coord(&(p.x, lo));
                root.draw(&PathElement::new(vec![(px, top), (px, bottom)], bar))?;
                for y in [top, bottom] {
                    root.draw(&PathElement::new(vec![(px - 6, y), (px + 6, y)], bar))?;
                }
            }
        }
        // Marks after the lines, each its own colour and marker shape.
        let lines = self.series.len();
        for (j, s) in self.marks.iter().enumerate() {
            let color = PALETTE[(lines + j) % PALETTE.len()];
            for p in s.points.iter().filter(|p| self.drawable(p)) {
                let at = chart.backend_coord(&(p.x, p.y));
                draw_marker(root, lines + j, at, color, false)?;
            }
        }
        Ok(())
    }

    /// Series `i`'s bars ([`Style::Spans`]): its points in pairs, each a
    /// filled bar in the series' band of its row.
    fn draw_spans<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
        i: usize,
        color: RGBColor,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let bands = self.series.len().max(1) as f64;
        let height = 0.8 / bands;
        let low = -0.4 + height * i as f64;
        for c in self.series[i].points.chunks_exact(2) {
            let (a, b) = (&c[0], &c[1]);
            if !(self.drawable(a) && self.drawable(b)) {
                continue;
            }
            let top = chart.backend_coord(&(a.x, a.y + low + height * 0.9));
            let bottom = chart.backend_coord(&(b.x, a.y + low));
            // A pixel's gap before the next node shows where one ends;
            // at least a pixel wide, so that a short compute is seen.
            let right = (bottom.0 - 1).max(top.0 + 1);
            root.draw(&Rectangle::new([top, (right, bottom.1)], color.filled()))?;
        }
        Ok(())
    }

    /// The legend strip's width: none without a named series, else about
    /// 0.6 em per character of the longest name, plus the line sample and
    /// margins, at most a third of the figure.
    fn legend_px(&self) -> u32 {
        let longest = self
            .series
            .iter()
            .chain(&self.marks)
            .chain(&self.references)
            .map(|s| s.name.chars().count())
            .filter(|&n| n > 0)
            .max();
        longest.map_or(0, |n| (n as u32 * TICK_PX * 6 / 10 + 90).min(SIZE.0 / 3))
    }

    /// The title in lines of `TITLE_PX` that fit across the figure,
    /// broken between words (a long title wraps instead of shrinking); a
    /// series of zeros alone would look like a missing plot, so the title
    /// says so.
    fn title_lines(&self) -> Vec<String> {
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
        wrap(&title, TITLE_PX, f64::from(SIZE.0 - 40))
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
        let drawn = |s: &&Series| !s.name.is_empty() && s.points.iter().any(|p| self.drawable(p));
        // Series and marks by their index (colour, dash, marker), then
        // the references (None).
        let shown: Vec<(Option<usize>, &Series)> = self
            .series
            .iter()
            .chain(&self.marks)
            .enumerate()
            .map(|(i, s)| (Some(i), s))
            .chain(self.references.iter().map(|s| (None, s)))
            .filter(|(_, s)| drawn(s))
            .collect();
        // One size for every entry: the longest name's, if it is longer
        // than the strip (capped at a third of the figure) at full size.
        let font_px = shown
            .iter()
            .map(|(_, s)| {
                let chars = s.name.chars().count().max(1) as u32;
                legend_px.saturating_sub(64) * 10 / (6 * chars)
            })
            .min()
            .map_or(TICK_PX, |fits| TICK_PX.min(fits.max(TICK_PX / 2)));
        for (row_n, (i, s)) in shown.into_iter().enumerate() {
            let row = 36 + row_n as i32 * (TICK_PX as i32 * 3 / 2);
            let Some(i) = i else {
                legend_area.draw(&PathElement::new(
                    vec![(8, row), (48, row)],
                    self.reference_color(s).stroke_width(2),
                ))?;
                legend_area.draw(&Text::new(
                    s.name.clone(),
                    (56, row - font_px as i32 / 2),
                    (FONT, font_px).into_font().color(&BLACK),
                ))?;
                continue;
            };
            self.draw_sample(root, legend_area, i, i >= lines, row)?;
            legend_area.draw(&Text::new(
                s.name.clone(),
                (56, row - font_px as i32 / 2),
                (FONT, font_px).into_font().color(&BLACK),
            ))?;
        }
        Ok(())
    }
}

impl Chart {
    /// A reference line's colour: grey, or the colour of the series it
    /// belongs to (named [`REFERENCE_OF`] and the series' name: a bound
    /// that differs between a sweep's cases).
    fn reference_color(&self, r: &Series) -> RGBColor {
        (r.name.strip_prefix(REFERENCE_OF))
            .and_then(|of| self.series.iter().position(|s| s.name == of))
            .map_or(REFERENCE, |i| PALETTE[i % PALETTE.len()])
    }

    /// The legend's sample of series (or, `mark`, mark) `i` on its `row`
    /// of `legend_area`: its line, dashed as drawn, its marker, or a bar.
    fn draw_sample<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        legend_area: &DrawingArea<DB, Shift>,
        i: usize,
        mark: bool,
        row: i32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let color = PALETTE[i % PALETTE.len()];
        let (on, off) = dash(i).map_or((40, 0), |(on, off)| (on as i32, off as i32));
        let mut x = 8;
        if self.style == Style::Spans && !mark {
            // A bar's sample is a bar.
            let bar = [(8, row - 6), (48, row + 6)];
            legend_area.draw(&Rectangle::new(bar, color.filled()))?;
            x = 48;
        }
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
            draw_marker(root, i, (dx + 28, dy + row), color, !mark)?;
        }
        Ok(())
    }
}

/// Series `i`'s marker at pixel `at` of `root`: circle, triangle, square
/// and cross in turn, so that a legend entry matches its line in print
/// without colour; each smaller than the one before, so that equal series
/// stay visible (a later marker sits inside an earlier one, which shows
/// around it). Event marks (`ladder` false), which mark different events,
/// keep one readable size.
fn draw_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    i: usize,
    at: (i32, i32),
    color: RGBColor,
    ladder: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = at;
    // Circle radius, triangle size, square half-side, cross size and
    // stroke: a ladder down, or one size for marks.
    let (circle, triangle, square, cross, stroke) = if ladder {
        (10, 9, 4, 4, 2)
    } else {
        (7, 9, 6, 7, 3)
    };
    match i % 4 {
        0 => root.draw(&Circle::new(at, circle, color.filled())),
        1 => root.draw(&TriangleMarker::new(at, triangle, color.filled())),
        2 => root.draw(&Rectangle::new(
            [(x - square, y - square), (x + square, y + square)],
            color.filled(),
        )),
        _ => root.draw(&Cross::new(at, cross, color.stroke_width(stroke))),
    }
}

/// The PNG backend over `rgb` (`SIZE`, 3 bytes a pixel): plotters'
/// bitmap drawn through [`Raster`], which sets the text and the thick
/// lines (see there why).
fn png_backend(rgb: &mut [u8]) -> Raster<BitMapBackend<'_>> {
    Raster::new(BitMapBackend::with_buffer(rgb, SIZE), bundled_font())
}

/// The colour of theory lines (a bound): a mid grey.
const REFERENCE: RGBColor = RGBColor(120, 120, 120);

/// How a reference line that belongs to one series is named: this, then
/// the series' name (drawn thin in the series' colour).
pub const REFERENCE_OF: &str = "bound: ";

/// `c` at half its brightness: error bars over a marker of colour `c`.
fn darker(c: RGBColor) -> RGBColor {
    RGBColor(c.0 / 2, c.1 / 2, c.2 / 2)
}

/// `text` broken between words into lines at most `width_px` wide in the
/// bundled face at `px` (a word longer than a line stands alone).
fn wrap(text: &str, px: u32, width_px: f64) -> Vec<String> {
    let font = bundled_font();
    let scaled = font.as_scaled(ab_glyph::PxScale::from(px as f32));
    let width = |s: &str| f64::from(super::raster::layout_width(&scaled, s));
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && width(&candidate) > width_px {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The bundled face, parsed.
fn bundled_font() -> ab_glyph::FontRef<'static> {
    ab_glyph::FontRef::try_from_slice(DEJAVU)
        .unwrap_or_else(|_| panic!("the embedded font is a valid TrueType file"))
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
            labels: vec![number_in(lo, 0.0, suffix(lo.abs(), 1e4))],
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
    // One suffix for the whole axis, the largest tick's: "10k" never
    // stands beside "1000".
    let big = at.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let labels = at
        .iter()
        .map(|v| number_in(*v, step, suffix(big, 1e4)))
        .collect();
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
    // Each decade its own suffix, from a thousand: 100, 1k, 10k.
    let labels = at
        .iter()
        .map(|v| number_in(*v, v * 0.1, suffix(v.abs(), 1e3)))
        .collect();
    Some(Ticks { at, labels })
}

/// The divisor and suffix for values of magnitude `a`: `G` from a
/// billion, `M` from a million, `k` from `k_from`, none below.
fn suffix(a: f64, k_from: f64) -> (f64, &'static str) {
    if a >= 1e9 {
        (1e9, "G")
    } else if a >= 1e6 {
        (1e6, "M")
    } else if a >= k_from {
        (1e3, "k")
    } else {
        (1.0, "")
    }
}

/// `v` with the decimals a tick step of `step` needs (none for a step of
/// 1 or more), thousands and millions shortened (`1.5k`, `2M`).
#[cfg(test)]
fn number_with(v: f64, step: f64) -> String {
    number_in(v, step, suffix(v.abs(), 1e4))
}

/// `v` divided and suffixed by `(div, suffix)`, with the decimals a tick
/// step of `step` needs there.
fn number_in(v: f64, step: f64, (div, suffix): (f64, &str)) -> String {
    let (scaled, step) = (v / div, step / div);
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
        assert_eq!(wide.labels, ["1", "10", "100", "1k", "10k"]);
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
            let root = png_backend(&mut rgb).into_drawing_area();
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

    /// A queue's event-by-event samples, many to a pixel column, rise and
    /// fall by one packet (timeline_port at t = 0, CoDel's queues.png):
    /// plotters' miters at those reversals threw the 3-px line through
    /// the tick labels below the frame.
    #[test]
    fn a_jagged_line_stays_inside_the_frame() {
        // The first samples of capture-tcp's switch->host0 queue (µs, B).
        let mut pts = vec![
            (1.0784, 60.0),
            (1.0784, 0.0),
            (1.0784, 60.0),
            (1.1568, 120.0),
            (6.544, 1500.0),
            (6.544, 0.0),
            (6.6224, 1500.0),
            (7.7744, 6000.0),
            (7.7744, 4500.0),
            (7.8528, 6000.0),
            (9.0048, 10500.0),
            (9.0832, 10500.0),
            (10.2352, 15000.0),
        ];
        pts.push((1035.168, 0.0));
        pts.push((500.0, 60000.0));
        pts.sort_by(|a: &(f64, f64), b| a.0.total_cmp(&b.0));
        let rgb = png_of(&chart(false, vec![line("queue", &pts)]));
        // The frame's bottom (y = 0) is 16 px of margin and 90 of labels
        // above the figure's bottom: the line may not reach 8 px below it.
        let bottom = SIZE.1 - 16 - 3 * LABEL_PX;
        let below = pixels_of(&rgb, PALETTE[0], bottom + 8..SIZE.1);
        assert_eq!(below, 0, "{below} pixels of the line below the frame");
    }

    /// Text is set at each glyph's side bearing: plotters' own bitmap text
    /// drew each glyph's ink at the pen position, jamming "T" into the "C"
    /// before it ("DC TCP") and opening "Ta il". Each glyph's first inked
    /// column (the first that differs from the word without it) must be
    /// where the font puts it: pen plus left side bearing.
    #[test]
    fn each_glyph_sits_at_its_side_bearing() {
        use ab_glyph::ScaleFont as _;
        let render = |text: &str, raster: bool| {
            register_font();
            let mut rgb = vec![255u8; (SIZE.0 * SIZE.1 * 3) as usize];
            let text = Text::new(text, (10, 10), (FONT, 40).into_font().color(&BLACK));
            if raster {
                png_backend(&mut rgb)
                    .into_drawing_area()
                    .draw(&text)
                    .unwrap();
            } else {
                let b = BitMapBackend::with_buffer(&mut rgb, SIZE);
                b.into_drawing_area().draw(&text).unwrap();
            }
            rgb
        };
        let font = bundled_font();
        let scaled = font.as_scaled(ab_glyph::PxScale::from(40.0));
        // The largest distance of a glyph's ink from where the font puts it.
        let worst = |word: &str, raster: bool| {
            let chars: Vec<char> = word.chars().collect();
            (1..chars.len())
                .map(|k| {
                    let before: String = chars[..k].iter().collect();
                    let with: String = chars[..=k].iter().collect();
                    let (a, b) = (render(&before, raster), render(&with, raster));
                    let first = (0..SIZE.0)
                        .find(|&x| {
                            (0..80).any(|y| {
                                let i = ((y * SIZE.0 + x) * 3) as usize;
                                a[i] != b[i]
                            })
                        })
                        .unwrap();
                    let (prev, id) = (scaled.glyph_id(chars[k - 1]), scaled.glyph_id(chars[k]));
                    let pen = f64::from(super::super::raster::layout_width(&scaled, &before))
                        + f64::from(scaled.kern(prev, id));
                    let lsb = f64::from(scaled.h_side_bearing(id));
                    let want = 10.0 + pen + lsb;
                    (f64::from(first) - want).abs()
                })
                .fold(0.0, f64::max)
        };
        for word in ["DCTCP", "Tail", "Drop"] {
            let off = worst(word, true);
            assert!(off <= 1.5, "{word}: a glyph {off:.1} px from its place");
        }
        assert!(
            worst("Tail", false) > 2.0,
            "plotters' own text is told apart"
        );
    }

    /// A theory's bound is no fourth scheme: thin, grey, no marker, no
    /// palette colour; the schemes keep theirs.
    #[test]
    fn a_reference_is_drawn_thin_and_grey_without_markers() {
        let mut c = chart(false, vec![line("ecmp", &[(1.0, 5.0), (2.0, 6.0)])]);
        c.style = Style::Markers;
        c.references = vec![line("bound", &[(1.0, 4.0), (2.0, 5.0)])];
        let svg = svg_of(&c);
        // One circle on each point of the scheme and one in its legend.
        assert_eq!(svg.matches("<circle").count(), 3, "{svg}");
        let grey = "stroke=\"#787878\"";
        assert!(svg.contains(grey), "the bound's grey line: {svg}");
        let second = PALETTE[1];
        let second = format!("#{:02X}{:02X}{:02X}", second.0, second.1, second.2);
        assert!(!svg.contains(&second), "the bound took a scheme's colour");
        assert!(svg.contains(">\nbound\n</text>"), "named in the legend");
        let png = png_of(&c);
        let legend = SIZE.0 - c.legend_px();
        let (lo, hi) = (0..SIZE.1, 0..legend);
        let grey_px = pixels_in(&png, REFERENCE, lo, hi);
        assert!(grey_px > 100, "{grey_px} grey pixels");
    }

    /// A long title wraps at one size instead of shrinking.
    #[test]
    fn a_long_title_wraps_at_full_size() {
        let mut c = chart(
            false,
            vec![line("a rather long series name", &[(1.0, 5.0)])],
        );
        c.title = "Completion time of the all-reduce against its gradient size, \
                   seeds 1, 2 and 3, ECMP against spraying and adaptive routing"
            .into();
        let lines = c.title_lines();
        assert!(lines.len() >= 2, "{lines:?}");
        assert_eq!(lines.join(" "), c.title);
        let room = f64::from(SIZE.0 - 40);
        assert!(
            lines.iter().all(|l| text_width_px(l, TITLE_PX) <= room),
            "{lines:?}"
        );
        let svg = svg_of(&c);
        for l in &lines {
            let at = svg
                .find(&format!(">\n{l}\n</text>"))
                .expect("each line drawn");
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let size = format!("font-size=\"{}\"", f64::from(TITLE_PX) / 1.24);
            assert!(tag.contains(&size), "{tag}");
        }
    }

    /// A category's note sits under its name, above the axis label (it
    /// fell onto the label once the title took its own strip).
    #[test]
    fn category_notes_sit_between_the_names_and_the_axis_label() {
        let mut c = chart(false, vec![line("a", &[(0.0, 1.0), (1.0, 2.0)])]);
        c.x = XAxis::Categories {
            label: "flow size".into(),
            names: vec!["8K".into(), "1M".into()],
            notes: vec!["n=101".into(), "n=47".into()],
        };
        let svg = svg_of(&c);
        let y_of = |text: &str| {
            let at = svg.find(&format!(">\n{text}\n</text>")).expect(text);
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let y = &tag[tag.find(" y=\"").unwrap() + 4..];
            y[..y.find('"').unwrap()].parse::<f64>().unwrap()
        };
        assert!(y_of("8K") < y_of("n=101"), "{svg}");
        assert!(
            y_of("n=101") + f64::from(TICK_PX) <= y_of("flow size"),
            "{svg}"
        );
    }

    /// Legend entries share one size, the longest name's.
    #[test]
    fn legend_entries_share_one_size() {
        let c = chart(
            false,
            vec![
                line("a", &[(1.0, 5.0)]),
                line(
                    "a much longer name than fits the strip at full size",
                    &[(1.0, 6.0)],
                ),
            ],
        );
        let svg = svg_of(&c);
        let size_of = |name: &str| {
            let at = svg.find(&format!(">\n{name}\n</text>")).unwrap();
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let size = &tag[tag.find("font-size=\"").unwrap() + 11..];
            size[..size.find('"').unwrap()].to_string()
        };
        assert_eq!(
            size_of("a"),
            size_of("a much longer name than fits the strip at full size")
        );
    }

    /// Equal series all show (the bound's crosses, drawn last at the
    /// size of the others, hid adaptive routing's squares): with four
    /// equal series, each keeps at least a quarter of the pixels its
    /// markers have alone.
    #[test]
    fn equal_series_all_show() {
        let pts = [(1.0, 5.0), (2.0, 6.0), (3.0, 7.0)];
        let four = |keep: Option<usize>| {
            let series = (0..4)
                .map(|i| match keep {
                    Some(k) if k != i => line(&format!("s{i}"), &[]),
                    _ => line(&format!("s{i}"), &pts),
                })
                .collect();
            let mut c = chart(false, series);
            c.style = Style::Points;
            c
        };
        let all = four(None);
        let plot = 0..SIZE.0 - all.legend_px();
        let png = png_of(&all);
        for (i, &colour) in PALETTE.iter().enumerate().take(4) {
            let alone = pixels_in(&png_of(&four(Some(i))), colour, 0..SIZE.1, plot.clone());
            let shown = pixels_in(&png, colour, 0..SIZE.1, plot.clone());
            assert!(
                4 * shown >= alone,
                "series {i}: {shown} of its {alone} pixels show"
            );
        }
    }

    /// A seed range shorter than its marker still shows, over the marker.
    #[test]
    fn a_short_error_bar_shows_over_its_marker() {
        let p = |x: f64| Point {
            x,
            y: 100.0,
            err: Some((99.9, 100.1)),
        };
        let mut c = chart(
            false,
            vec![Series {
                name: "a".into(),
                points: vec![p(1.0), p(2.0)],
            }],
        );
        c.style = Style::Markers;
        c.y_range = Some((0.0, 200.0));
        let png = png_of(&c);
        let n = pixels_in(&png, darker(PALETTE[0]), 0..SIZE.1, 0..SIZE.0);
        assert!(n >= 2 * 12, "{n} pixels of the bars' shade");
    }

    /// One suffix on a linear axis ("10k" never beside "1000").
    #[test]
    fn a_linear_axis_has_one_suffix() {
        let t = Ticks::of(0.0, 12_000.0, false);
        assert!(
            t.labels.iter().all(|l| l == "0" || l.ends_with('k')),
            "{t:?}"
        );
        let t = Ticks::of(0.0, 5000.0, false);
        assert!(t.labels.iter().all(|l| !l.ends_with('k')), "{t:?}");
    }

    /// The width of `text` set in the bundled face at `px`, as plotters and
    /// [`Raster`] lay it out (advances and kerning).
    fn text_width_px(text: &str, px: u32) -> f64 {
        let font = bundled_font();
        f64::from(super::super::raster::layout_width(
            &font.as_scaled(ab_glyph::PxScale::from(px as f32)),
            text,
        ))
    }

    fn png_of(c: &Chart) -> Vec<u8> {
        register_font();
        let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
        {
            let root = png_backend(&mut rgb).into_drawing_area();
            c.draw(&root).unwrap();
        }
        rgb
    }

    /// How many pixels in `rows` are exactly `color`.
    fn pixels_of(rgb: &[u8], color: RGBColor, rows: std::ops::Range<u32>) -> usize {
        pixels_in(rgb, color, rows, 0..SIZE.0)
    }

    /// How many pixels in `rows` x `cols` are exactly `color`.
    fn pixels_in(
        rgb: &[u8],
        color: RGBColor,
        rows: std::ops::Range<u32>,
        cols: std::ops::Range<u32>,
    ) -> usize {
        rows.flat_map(|y| cols.clone().map(move |x| ((y * SIZE.0 + x) * 3) as usize))
            .filter(|&i| rgb[i..i + 3] == [color.0, color.1, color.2])
            .count()
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
