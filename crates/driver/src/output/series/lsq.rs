//! Small weighted least-squares fits (the zonal-mean fit in latitude, the quadratic fit
//! around the surface-pressure minimum): normal equations solved by Gaussian elimination
//! with partial pivoting.

use std::cmp::Ordering;

/// Accumulates the normal equations `Σ w·b·bᵀ · c = Σ w·b·y` of a fit with `N` basis
/// functions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NormalEquations<const N: usize> {
    a: [[f64; N]; N],
    r: [f64; N],
    points: usize,
}

impl<const N: usize> NormalEquations<N> {
    /// No points yet.
    pub(crate) fn new() -> Self {
        NormalEquations {
            a: [[0.0; N]; N],
            r: [0.0; N],
            points: 0,
        }
    }

    /// Adds the point with basis values `basis`, value `y` and weight `w`.
    pub(crate) fn add(&mut self, basis: &[f64; N], y: f64, w: f64) {
        for (row, (r, bi)) in self.a.iter_mut().zip(self.r.iter_mut().zip(basis)) {
            let wb = w * bi;
            *r += wb * y;
            for (a, bj) in row.iter_mut().zip(basis) {
                *a += wb * bj;
            }
        }
        self.points += 1;
    }

    /// The coefficients of the first `m ≤ N` basis functions fitted alone (the leading
    /// block of the equations); `None` when there are fewer points than coefficients or
    /// the system is singular to working precision.
    pub(crate) fn solve_leading(&self, m: usize) -> Option<[f64; N]> {
        if m == 0 || m > N || self.points < m {
            return None;
        }
        let mut a = self.a;
        let mut r = self.r;
        let scale = (0..m).map(|i| a[i][i].abs()).fold(0.0, f64::max);
        for col in 0..m {
            let pivot = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
            // Also refuses a NaN pivot.
            if a[pivot][col].abs().partial_cmp(&(1e-12 * scale)) != Some(Ordering::Greater) {
                return None;
            }
            a.swap(col, pivot);
            r.swap(col, pivot);
            let (done, rest) = a.split_at_mut(col + 1);
            let pivot_row = &done[col];
            for (offset, row) in rest[..m - col - 1].iter_mut().enumerate() {
                let f = row[col] / pivot_row[col];
                for (x, p) in row[col..m].iter_mut().zip(&pivot_row[col..m]) {
                    *x -= f * p;
                }
                r[col + 1 + offset] -= f * r[col];
            }
        }
        let mut c = [0.0; N];
        for i in (0..m).rev() {
            let s: f64 = (i + 1..m).map(|j| a[i][j] * c[j]).sum();
            c[i] = (r[i] - s) / a[i][i];
        }
        Some(c)
    }

    /// The fit with as many of the leading basis functions as the points determine:
    /// `N`, else fewer (a lower-degree fit), the count used with the coefficients.
    pub(crate) fn solve_best(&self) -> Option<(usize, [f64; N])> {
        (1..=N)
            .rev()
            .find_map(|m| self.solve_leading(m).map(|c| (m, c)))
    }
}

/// A compensated (Neumaier) sum: the budgets add ~10⁶ terms and compare sums of
/// successive steps to ~1e-13, below the round-off of a plain sum.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sum {
    sum: f64,
    compensation: f64,
}

impl Sum {
    /// Adds `x`.
    pub(crate) fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum.
    pub(crate) fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quadratic is fitted exactly; a linear fit of it is the least-squares line.
    #[test]
    fn fits_a_quadratic() {
        let mut e = NormalEquations::<3>::new();
        for i in 0..7 {
            let x = i as f64 * 0.1 - 0.3;
            e.add(
                &[1.0, x, x * x],
                2.0 - 3.0 * x + 5.0 * x * x,
                1.0 + i as f64,
            );
        }
        let (m, c) = e.solve_best().unwrap();
        assert_eq!(m, 3);
        for (got, want) in c.iter().zip([2.0, -3.0, 5.0]) {
            assert!((got - want).abs() < 1e-10, "{c:?}");
        }
        // Two points at one x: the quadratic and the line are undetermined, the mean not.
        let mut e = NormalEquations::<3>::new();
        e.add(&[1.0, 0.2, 0.04], 1.0, 1.0);
        e.add(&[1.0, 0.2, 0.04], 3.0, 1.0);
        let (m, c) = e.solve_best().unwrap();
        assert_eq!((m, c[0]), (1, 2.0));
    }

    /// The compensated sum keeps what a plain sum loses.
    #[test]
    fn compensated_sum() {
        let mut s = Sum::default();
        for x in [1e16, 1.0, -1e16, 1.0] {
            s.add(x);
        }
        assert_eq!(s.value(), 2.0);
    }
}
