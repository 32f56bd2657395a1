//! Finding the form in an image: its four registration marks, then which way up it lies.
//!
//! The marks are the solid black squares nearest the image's corners: a form fills most of a
//! scan or a photograph taken to read it, and no box or cross is as close to a corner. Each is
//! looked for only in its corner's part of the image, which also keeps the work small.

use image::GrayImage;
use imageproc::region_labelling::{connected_components, Connectivity};

/// How much of the image's width and height each corner's search covers.
const WINDOW: (f32, f32) = (0.28, 0.2);

/// A mark's side as a share of the image's width: 6 mm of a 148 mm form is about 0.04, and a
/// form photographed with some background or scanned with a margin is smaller.
const SIDE: (f32, f32) = (0.015, 0.08);

/// The image's paper and darkest ink, from its histogram.
#[derive(Clone, Copy, Debug)]
pub struct Levels {
    pub paper: f32,
    pub black: f32,
}

impl Levels {
    /// Paper is what most of the page is (the 90th percentile); the darkest ink, the marks,
    /// is under one percent of it.
    pub fn of(image: &GrayImage) -> Levels {
        let mut histogram = [0u64; 256];
        // Every other pixel of every other row: the levels, at a quarter of the reads.
        for y in (0..image.height()).step_by(2) {
            for x in (0..image.width()).step_by(2) {
                histogram[usize::from(image.get_pixel(x, y).0[0])] += 1;
            }
        }
        let total: u64 = histogram.iter().sum();
        let at = |share: f64| {
            let wanted = (total as f64 * share) as u64;
            let mut seen = 0;
            for (level, count) in histogram.iter().enumerate() {
                seen += count;
                if seen > wanted {
                    return level as f32;
                }
            }
            255.0
        };
        Levels {
            paper: at(0.9),
            black: at(0.002),
        }
    }

    /// Solid black: darker than a third of the way from the darkest ink to the paper, so the
    /// grey print and pencil are not.
    fn solid(&self) -> u8 {
        (self.black + (self.paper - self.black) / 3.0) as u8
    }
}

/// The centres of the solid squares nearest the image's corners, in pixels: top left, top
/// right, bottom right, bottom left as the image lies. `None` names a corner with none.
pub fn find(image: &GrayImage, levels: Levels) -> [Option<(f32, f32)>; 4] {
    let (w, h) = (image.width(), image.height());
    let (ww, wh) = ((w as f32 * WINDOW.0) as u32, (h as f32 * WINDOW.1) as u32);
    let origins = [(0, 0), (w - ww, 0), (w - ww, h - wh), (0, h - wh)];
    let corners = [
        (0.0, 0.0),
        (w as f32, 0.0),
        (w as f32, h as f32),
        (0.0, h as f32),
    ];
    let side = (w as f32 * SIDE.0, w as f32 * SIDE.1);
    std::array::from_fn(|i| {
        let (ox, oy) = origins[i];
        nearest_square(image, levels.solid(), (ox, oy, ww, wh), corners[i], side)
    })
}

/// One component of dark pixels: its pixel count, bounds and the sums for its centre.
#[derive(Clone, Copy)]
struct Blob {
    count: u32,
    min: (u32, u32),
    max: (u32, u32),
    sum: (u64, u64),
}

impl Blob {
    fn new(x: u32, y: u32) -> Blob {
        Blob {
            count: 0,
            min: (x, y),
            max: (x, y),
            sum: (0, 0),
        }
    }

    fn add(&mut self, x: u32, y: u32) {
        self.count += 1;
        self.min = (self.min.0.min(x), self.min.1.min(y));
        self.max = (self.max.0.max(x), self.max.1.max(y));
        self.sum = (self.sum.0 + u64::from(x), self.sum.1 + u64::from(y));
    }

    /// A filled square of a mark's size: nearly square, nearly all dark.
    fn is_mark(&self, side: (f32, f32)) -> bool {
        let bw = (self.max.0 - self.min.0 + 1) as f32;
        let bh = (self.max.1 - self.min.1 + 1) as f32;
        let fill = self.count as f32 / (bw * bh);
        (0.7..1.45).contains(&(bw / bh)) && fill > 0.75 && bw >= side.0 && bw <= side.1
    }

    fn centre(&self) -> (f32, f32) {
        let n = self.count as f64;
        (
            (self.sum.0 as f64 / n) as f32,
            (self.sum.1 as f64 / n) as f32,
        )
    }
}

fn nearest_square(
    image: &GrayImage,
    solid: u8,
    (ox, oy, ww, wh): (u32, u32, u32, u32),
    corner: (f32, f32),
    side: (f32, f32),
) -> Option<(f32, f32)> {
    let window = GrayImage::from_fn(ww, wh, |x, y| {
        let dark = image.get_pixel(ox + x, oy + y).0[0] <= solid;
        image::Luma([if dark { 255 } else { 0 }])
    });
    let labels = connected_components(&window, Connectivity::Eight, image::Luma([0u8]));
    let mut blobs: Vec<Option<Blob>> = Vec::new();
    for (x, y, label) in labels.enumerate_pixels() {
        let label = label.0[0] as usize;
        if label == 0 {
            continue;
        }
        if blobs.len() <= label {
            blobs.resize(label + 1, None);
        }
        blobs[label]
            .get_or_insert_with(|| Blob::new(x, y))
            .add(x, y);
    }
    blobs
        .into_iter()
        .flatten()
        .filter(|b| b.is_mark(side))
        .map(|b| {
            let (x, y) = b.centre();
            (x + ox as f32, y + oy as f32)
        })
        .min_by(|a, b| distance(*a, corner).total_cmp(&distance(*b, corner)))
}

fn distance(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}
