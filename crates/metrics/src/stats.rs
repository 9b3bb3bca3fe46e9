//! Small statistics over timing samples (NaN-safe ordering, no allocation beyond one copy).

/// The median of `xs` (mean of the two middle values for an even count); `None` when empty.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// The arithmetic mean of `xs`; `None` when empty.
pub fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The sample standard deviation of `xs` (ddof = 1, as GT4Py's metrics table); 0 for one
/// sample, `None` when empty.
pub fn std_dev(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    if xs.len() < 2 {
        return Some(0.0);
    }
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// Count, median, mean and standard deviation of a sample set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (ddof = 1).
    pub std: f64,
}

impl Summary {
    /// Summarise `xs`; `None` when empty.
    pub fn of(xs: &[f64]) -> Option<Summary> {
        Some(Summary {
            n: xs.len(),
            median: median(xs)?,
            mean: mean(xs)?,
            std: std_dev(xs)?,
        })
    }

    /// The same summary with every value multiplied by `factor` (e.g. 1e3 for s → ms).
    pub fn scaled(self, factor: f64) -> Summary {
        Summary {
            n: self.n,
            median: self.median * factor,
            mean: self.mean * factor,
            std: self.std * factor,
        }
    }
}
