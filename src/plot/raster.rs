//! What a PNG figure needs beyond plotters' bitmap backend: a wrapper
//! ([`Raster`]) that sets text from the bundled font with each glyph at
//! its own side bearing, and strokes thick lines without spikes.
//!
//! plotters 0.3.7 draws an `ab_glyph` glyph's bitmap at the pen position,
//! dropping its left side bearing, so that a round letter before a
//! straight one opened a gap ("DC TCP", "Drop Tail"); and it joins the
//! segments of a thick line with unbounded miters, so that a one-pixel
//! reversal (a queue sample going up and straight back down) threw a
//! spike far outside the plot's frame. The SVG backend has neither
//! problem (its viewer sets the text and clips the joins), so only PNGs
//! are drawn through this wrapper.

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A drawing backend that delegates to `B` but sets text and strokes
/// thick paths itself (the module's doc says why).
pub struct Raster<B> {
    inner: B,
    font: FontRef<'static>,
}

impl<B: DrawingBackend> Raster<B> {
    /// Wraps `inner`, setting every text in `font` (the bundled face: a
    /// figure has one).
    pub fn new(inner: B, font: FontRef<'static>) -> Raster<B> {
        Raster { inner, font }
    }
}

/// Below this cosine between one segment's direction and the next's (a
/// turn sharper than 120 degrees), a thick line is ended and started again
/// at the vertex: the miter there would be more than twice the line's
/// width.
const SHARP_TURN_COS: f64 = -0.5;

/// `path` cut at its sharp turns into pieces that can be joined by
/// miters, each at least two points; consecutive equal points are merged.
pub fn split_at_sharp_turns(path: &[BackendCoord]) -> Vec<Vec<BackendCoord>> {
    let mut points: Vec<BackendCoord> = Vec::with_capacity(path.len());
    for &p in path {
        if points.last() != Some(&p) {
            points.push(p);
        }
    }
    let mut pieces = Vec::new();
    let mut piece: Vec<BackendCoord> = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        piece.push(p);
        let Some(&next) = points.get(i + 1) else {
            break;
        };
        if piece.len() >= 2 {
            let prev = piece[piece.len() - 2];
            let (ax, ay) = (f64::from(p.0 - prev.0), f64::from(p.1 - prev.1));
            let (bx, by) = (f64::from(next.0 - p.0), f64::from(next.1 - p.1));
            let cos =
                (ax * bx + ay * by) / ((ax * ax + ay * ay).sqrt() * (bx * bx + by * by).sqrt());
            if cos < SHARP_TURN_COS {
                pieces.push(std::mem::replace(&mut piece, vec![p]));
            }
        }
    }
    if piece.len() >= 2 {
        pieces.push(piece);
    }
    pieces
}

/// Each glyph of `text` in the scaled `font` with its pen position: the
/// advances and kerning before it.
fn pens<'a, F: Font, S: ScaleFont<F>>(
    font: &'a S,
    text: &'a str,
) -> impl Iterator<Item = (GlyphId, f32)> + 'a {
    let (mut pen, mut prev) = (0.0f32, None::<GlyphId>);
    text.chars().map(move |c| {
        let id = font.glyph_id(c);
        if let Some(p) = prev {
            pen += font.kern(p, id);
        }
        let at = pen;
        pen += font.h_advance(id);
        prev = Some(id);
        (id, at)
    })
}

/// A text's advance width in the scaled `font`, kerned as plotters
/// estimates it, so that what plotters reserves is what is drawn.
pub fn layout_width<F: Font, S: ScaleFont<F>>(font: &S, text: &str) -> f32 {
    pens(font, text)
        .last()
        .map_or(0.0, |(id, at)| at + font.h_advance(id))
}

impl<B: DrawingBackend> DrawingBackend for Raster<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    /// A thick path in pieces cut at its sharp turns, each vertex cut
    /// covered by a disc of the line's width (a round join).
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        if style.stroke_width() <= 1 {
            return self.inner.draw_path(path, style);
        }
        let path: Vec<BackendCoord> = path.into_iter().collect();
        let pieces = split_at_sharp_turns(&path);
        for (i, piece) in pieces.iter().enumerate() {
            self.inner.draw_path(piece.iter().copied(), style)?;
            if i > 0 {
                let radius = style.stroke_width() / 2;
                self.inner
                    .draw_circle(piece[0], radius, &style.color(), true)?;
            }
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    /// The text set glyph by glyph at the pen position plus each glyph's
    /// own bounds (its side bearing), kerned; anchored and rotated as
    /// plotters' own text is, the capital letters centred in the box
    /// plotters reserves (`size / 1.24` high).
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let size = style.size() as f32;
        let font = self.font.as_scaled(PxScale::from(size));
        let width = layout_width(&font, text);
        let height = size / 1.24;
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Right => -width,
            HPos::Center => -width / 2.0,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0.0,
            VPos::Center => -height / 2.0,
            VPos::Bottom => -height,
        };
        let cap = self
            .font
            .outline_glyph(font.scaled_glyph('H'))
            .map_or(height * 0.8, |g| g.px_bounds().height());
        let baseline = (height + cap) / 2.0;
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        let mut pixels = Vec::new();
        for (id, pen) in pens(&font, text) {
            let glyph = id.with_scale_and_position(font.scale(), point(pen + dx, baseline + dy));
            let Some(outline) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            pixels.clear();
            outline.draw(|x, y, coverage| {
                pixels.push((
                    bounds.min.x as i32 + x as i32,
                    bounds.min.y as i32 + y as i32,
                    coverage,
                ))
            });
            for &(x, y, coverage) in &pixels {
                let (x, y) = trans.transform(x, y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 && coverage > 0.0 {
                    let c = BackendColor {
                        alpha: color.alpha * f64::from(coverage.min(1.0)),
                        rgb: color.rgb,
                    };
                    self.inner.draw_pixel((x, y), c)?;
                }
            }
        }
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, (iw, ih), src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reversal_cuts_the_path_and_a_gentle_turn_does_not() {
        let gentle = [(0, 0), (10, 0), (20, 5), (30, 5)];
        assert_eq!(split_at_sharp_turns(&gentle), vec![gentle.to_vec()]);
        // One pixel up and straight back down: two pieces meeting at
        // (10, 9). A right angle is no reversal.
        let spike = [(0, 10), (10, 10), (10, 9), (10, 10), (20, 10)];
        assert_eq!(
            split_at_sharp_turns(&spike),
            vec![
                vec![(0, 10), (10, 10), (10, 9)],
                vec![(10, 9), (10, 10), (20, 10)]
            ]
        );
        let corner = [(0, 0), (10, 0), (10, 10)];
        assert_eq!(split_at_sharp_turns(&corner), vec![corner.to_vec()]);
        assert_eq!(
            split_at_sharp_turns(&[(1, 1), (1, 1), (5, 1)]),
            vec![vec![(1, 1), (5, 1)]],
            "repeated points merge"
        );
        assert!(split_at_sharp_turns(&[(3, 3), (3, 3)]).is_empty());
    }
}
