//! A box's ink, and what it says: marked, empty, or unclear.
//!
//! Ink is measured against the form's own paper just outside the box (a photograph's light
//! falls unevenly) and the form's own black (its marks), so a pencil and a pen, a dark scan and
//! a pale one are judged alike. The outline is left out, and over the printed value (mid grey)
//! only what is darker than print counts: what is counted is what the player put there, and a
//! small cross drawn over the value is still seen.
//!
//! Rule 5.5(a) asks for a cross (X). A cross reaches all four quarters of a box; a stray line
//! crosses at most three, a tick usually three, a half-erased cross is faint. Only a box
//! clearly crossed (or filled) is marked, only a box with next to no ink is empty; anything
//! between is unclear, and an unclear box refuses the form rather than being guessed.

use imageproc::geometric_transformations::Projection;
use serde::Serialize;

use super::Sampler;
use crate::layout::{FormBox, Rect};

/// Samples every 0.2 mm: about 1.6 pixels at 200 dpi.
const STEP_MM: f32 = 0.2;
/// Left out inside the box's outline, and around its printed value.
const INSET_MM: f32 = 0.9;
const LABEL_MARGIN_MM: f32 = 0.6;
/// The paper's ring just outside the outline (the gap between boxes is 1.5 mm).
const RING_MM: (f32, f32) = (0.45, 0.95);

/// A sample at least this dark (0 paper, 1 the marks' black) is ink; over the printed value
/// (`pdf::PRINT_GREY`, about 0.45 dark), only a sample darker than any print.
const INKED: f32 = 0.33;
const INKED_OVER_PRINT: f32 = 0.65;

/// Thresholds, from the corpus of `tests/corpus.rs` (the note's table).
const MARKED_INKED: f32 = 0.035;
const MARKED_QUARTER: f32 = 0.01;
const BALANCE: f32 = 0.12;
const EMPTY_INKED: f32 = 0.015;
const EMPTY_MEAN: f32 = 0.03;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Marked,
    Empty,
    Unclear,
}

/// What a box holds: its mean darkness, the share of it that is ink, and that share in each
/// quarter (top left, top right, bottom left, bottom right). `off_image` when part of the box
/// was outside the picture.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Ink {
    pub mean: f32,
    pub inked: f32,
    pub quarters: [f32; 4],
    pub off_image: bool,
}

impl Ink {
    pub fn judgement(&self) -> Judgement {
        if self.off_image {
            return Judgement::Unclear;
        }
        let most = self.quarters.iter().copied().fold(0.0, f32::max);
        let least = self.quarters.iter().copied().fold(1.0, f32::min);
        // Every quarter, and none far less than the most: a cross, not a tick's hook.
        if self.inked >= MARKED_INKED && least >= MARKED_QUARTER && least >= most * BALANCE {
            Judgement::Marked
        } else if self.inked < EMPTY_INKED && self.mean < EMPTY_MEAN {
            Judgement::Empty
        } else {
            Judgement::Unclear
        }
    }
}

/// Counts for the mean and the shares.
#[derive(Default)]
struct Tally {
    sum: f32,
    n_paper: u32,
    n: u32,
    inked: u32,
    quarter_n: [u32; 4],
    quarter_inked: [u32; 4],
}

/// Measures box `b`, the model mapped onto the image by `to_image`, `black` the marks' level.
pub(super) fn measure(
    sampler: &Sampler<'_>,
    to_image: &Projection,
    b: &FormBox,
    black: f32,
) -> Ink {
    let outer = b.rect.grown(RING_MM.1);
    let ring_inner = b.rect.grown(RING_MM.0);
    let inside = b.rect.grown(-INSET_MM);
    let label = b.label_rect().grown(LABEL_MARGIN_MM);
    let has_label = !b.label.is_empty();
    let (cx, cy) = b.rect.centre();
    let mut ring = Vec::with_capacity(512);
    let mut inner: Vec<(f32, usize, bool)> = Vec::with_capacity(2048);
    let mut off_image = false;
    for_each_point(&outer, |x, y| {
        let in_ring = !ring_inner.contains(x, y);
        let counted = inside.contains(x, y);
        if !in_ring && !counted {
            return;
        }
        let (px, py) = *to_image * (x, y);
        let Some(level) = sampler.at(px, py) else {
            off_image = true;
            return;
        };
        if in_ring {
            ring.push(level);
        } else {
            let quarter = usize::from(x > cx) + 2 * usize::from(y > cy);
            let over_print = has_label && label.contains(x, y);
            inner.push((level, quarter, over_print));
        }
    });
    let paper = percentile(&mut ring, 0.8).unwrap_or(255.0);
    let span = (paper - black).max(1.0);
    let mut t = Tally::default();
    for (level, quarter, over_print) in inner {
        let dark = ((paper - level) / span).clamp(0.0, 1.0);
        // The mean is of the paper only: over the value, print is not a mark.
        if !over_print {
            t.sum += dark;
            t.n_paper += 1;
        }
        t.n += 1;
        t.quarter_n[quarter] += 1;
        if dark >= if over_print { INKED_OVER_PRINT } else { INKED } {
            t.inked += 1;
            t.quarter_inked[quarter] += 1;
        }
    }
    let share = |a: u32, n: u32| if n == 0 { 0.0 } else { a as f32 / n as f32 };
    Ink {
        mean: if t.n_paper == 0 {
            0.0
        } else {
            t.sum / t.n_paper as f32
        },
        inked: share(t.inked, t.n),
        quarters: std::array::from_fn(|q| share(t.quarter_inked[q], t.quarter_n[q])),
        off_image,
    }
}

fn for_each_point(r: &Rect, mut f: impl FnMut(f32, f32)) {
    let (nx, ny) = ((r.w / STEP_MM) as u32, (r.h / STEP_MM) as u32);
    for j in 0..=ny {
        for i in 0..=nx {
            f(r.x + STEP_MM * i as f32, r.y + STEP_MM * j as f32);
        }
    }
}

fn percentile(levels: &mut [f32], share: f32) -> Option<f32> {
    if levels.is_empty() {
        return None;
    }
    let at = ((levels.len() - 1) as f32 * share) as usize;
    let (_, level, _) = levels.select_nth_unstable_by(at, f32::total_cmp);
    Some(*level)
}
