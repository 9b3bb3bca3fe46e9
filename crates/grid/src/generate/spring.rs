//! Spring-dynamics optimisation of icosahedral vertex positions (Tomita et al. 2001,
//! JCP 174, 579–613; Tomita et al. 2002), as ICON's grid generators apply it
//! (`lspring_dynamics`, `beta_spring`).
//!
//! Every grid edge is a spring of stiffness 1 and natural arc length
//! `len0 = beta · 2π / sqrt(N)` on the unit sphere (`N` triangles; ICON's definition of
//! the reference length, so `beta` means what ICON's `beta_spring` means). The net force
//! on a vertex is `F_i = Σ_j (arc_ij − len0) · (p_j − p_i) / |p_j − p_i|`; vertices with
//! five neighbours (the twelve icosahedron corners) stay fixed, every other vertex moves
//! on the sphere under `dv/dt = F − γ v` (unit mass, friction `γ`), velocities kept
//! tangent. The grid is the steady state `F_tangent = 0`, which neither the time step nor
//! the friction changes: they only set how fast it is reached.
//!
//! Time stepping is semi-implicit Euler (velocity first, then position with the new
//! velocity), Jacobi-style (every vertex moves from the previous positions), so the
//! result is bitwise independent of the number of threads.

use crate::error::{GridError, Result};
use crate::space::{add, dot, norm, normalize, scale, sub, Vec3};
use rayon::prelude::*;

/// ICON's default `beta_spring` (DWD grid generator namelist).
pub const ICON_BETA_SPRING: f64 = 0.9;

/// Largest `beta` accepted; beyond ICON's stable range (0.9–1.11) the springs are so
/// compressed that they buckle, which is reported as an error.
pub const MAX_BETA_SPRING: f64 = 2.0;

/// Time step of the damped spring equation (unit stiffness and mass) for springs under
/// compression; under tension the network is stiffer and the step shorter (see
/// `step_and_friction`).
const DT: f64 = 0.7;
/// Friction per radian of natural length: close to critical damping of the slowest
/// (largest-scale) modes, whose stiffness falls with the square of the edge length.
const FRICTION_PER_RADIAN: f64 = 12.0;
/// Friction at most (coarse levels).
const MAX_FRICTION: f64 = 0.3;
/// The iteration stops when no vertex moved by more than this (radians on the unit
/// sphere: 6.4 µm on the Earth) in one step.
const STEP_TOLERANCE: f64 = 1e-12;
/// Steps per level at most; a level that has not converged by then is an error.
const MAX_STEPS: usize = 20_000;

/// How the vertex positions of a global icosahedral grid are placed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Optimisation {
    /// Recursive bisection only: every new vertex is the midpoint of its edge.
    #[default]
    Plain,
    /// Spring dynamics after each bisection with the given `beta_spring`.
    Spring {
        /// Natural spring length as a multiple of `2π / sqrt(triangles)`.
        beta: f64,
    },
}

impl Optimisation {
    /// Spring dynamics with `beta`, checked to lie in `(0, 2]`.
    pub fn spring(beta: f64) -> Result<Optimisation> {
        if beta.is_finite() && beta > 0.0 && beta <= MAX_BETA_SPRING {
            Ok(Optimisation::Spring { beta })
        } else {
            Err(GridError::InvalidParameters(format!(
                "spring-dynamics beta {beta} must be in (0, {MAX_BETA_SPRING}] \
                 (ICON's default is {ICON_BETA_SPRING}; its stable range 0.9–1.11)"
            )))
        }
    }

    /// The suffix of a grid name: `""`, `":spring"` (ICON's beta) or `":spring:<beta>"`.
    pub fn name_suffix(&self) -> String {
        match *self {
            Optimisation::Plain => String::new(),
            Optimisation::Spring { beta } if beta == ICON_BETA_SPRING => ":spring".into(),
            Optimisation::Spring { beta } => format!(":spring:{beta}"),
        }
    }
}

/// What a relaxation did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    /// Time steps taken.
    pub steps: usize,
    /// Largest vertex displacement of the last step (radians).
    pub last_step: f64,
}

/// The springs of a triangulated unit sphere: the neighbours of every vertex (CSR) and
/// which vertices stay fixed.
#[derive(Debug, Clone)]
pub struct SpringNetwork {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
    fixed: Vec<bool>,
    len0: f64,
}

impl SpringNetwork {
    /// The springs along the edges of `cells` (vertex triples) over `n_vertices`
    /// vertices, natural length `beta · 2π / sqrt(cells.len())`; vertices with five
    /// neighbours are fixed.
    pub fn new(n_vertices: usize, cells: &[[u32; 3]], beta: f64) -> Result<SpringNetwork> {
        Optimisation::spring(beta)?;
        if cells.is_empty() {
            return Err(GridError::InvalidParameters(
                "spring dynamics needs at least one cell".into(),
            ));
        }
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(cells.len() * 6);
        for (c, tri) in cells.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                if a == b || a as usize >= n_vertices || b as usize >= n_vertices {
                    return Err(GridError::Topology(format!(
                        "cell {c} has invalid vertices {tri:?}"
                    )));
                }
                pairs.extend([(a, b), (b, a)]);
            }
        }
        pairs.par_sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; n_vertices + 1];
        for &(a, _) in &pairs {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..n_vertices {
            offsets[i + 1] += offsets[i];
        }
        let neighbours = pairs.into_iter().map(|(_, b)| b).collect();
        let fixed = (0..n_vertices)
            .map(|v| offsets[v + 1] - offsets[v] == 5)
            .collect();
        Ok(SpringNetwork {
            offsets,
            neighbours,
            fixed,
            len0: beta * 2.0 * std::f64::consts::PI / (cells.len() as f64).sqrt(),
        })
    }

    /// Natural spring length (radians).
    pub fn natural_length(&self) -> f64 {
        self.len0
    }

    /// Number of fixed vertices.
    pub fn n_fixed(&self) -> usize {
        self.fixed.iter().filter(|&&f| f).count()
    }

    fn n_vertices(&self) -> usize {
        self.fixed.len()
    }

    /// Net spring force on vertex `i`, tangent to the sphere.
    #[inline]
    fn force(&self, pos: &[Vec3], i: usize) -> Vec3 {
        let p = pos[i];
        let mut f = [0.0; 3];
        for &j in &self.neighbours[self.offsets[i] as usize..self.offsets[i + 1] as usize] {
            let d = sub(pos[j as usize], p);
            let c2 = dot(d, d);
            f = add(f, scale(d, arc_per_chord(c2) - self.len0 / c2.sqrt()));
        }
        sub(f, scale(p, dot(f, p)))
    }

    /// Largest net tangential force on a free vertex, relative to the natural length
    /// (0 at the steady state).
    pub fn residual(&self, pos: &[Vec3]) -> Result<f64> {
        self.check_len(pos)?;
        let r = (0..self.n_vertices())
            .into_par_iter()
            .with_min_len(4096)
            .filter(|&i| !self.fixed[i])
            .map(|i| norm(self.force(pos, i)) / self.len0)
            .reduce(|| 0.0, nan_max);
        Ok(r)
    }

    fn check_len(&self, pos: &[Vec3]) -> Result<()> {
        if pos.len() != self.n_vertices() {
            return Err(GridError::InvalidParameters(format!(
                "{} vertex positions for a spring network of {} vertices",
                pos.len(),
                self.n_vertices()
            )));
        }
        Ok(())
    }

    /// Integrates the damped spring equation from rest until no vertex moves by more
    /// than the tolerance in a step; `pos` (unit vectors) then holds the steady state.
    pub fn relax(&self, pos: &mut Vec<Vec3>) -> Result<Relaxation> {
        self.check_len(pos)?;
        let (dt, friction) = self.step_and_friction(pos);
        let mut vel = vec![[0.0; 3]; self.n_vertices()];
        let (mut next_pos, mut next_vel) = (pos.clone(), vel.clone());
        for step in 1..=MAX_STEPS {
            let moved = next_pos
                .par_iter_mut()
                .zip(next_vel.par_iter_mut())
                .enumerate()
                .with_min_len(4096)
                .map(|(i, (np, nv))| {
                    if self.fixed[i] {
                        return 0.0;
                    }
                    let p = pos[i];
                    let v = add(
                        scale(vel[i], 1.0 - friction * dt),
                        scale(self.force(pos, i), dt),
                    );
                    let v = sub(v, scale(p, dot(v, p)));
                    let q = normalize(add(p, scale(v, dt)));
                    *np = q;
                    *nv = v;
                    norm(sub(q, p))
                })
                .reduce(|| 0.0, nan_max);
            std::mem::swap(pos, &mut next_pos);
            std::mem::swap(&mut vel, &mut next_vel);
            if !moved.is_finite() || moved > 1.0 {
                return Err(self.failed(&format!("became unstable at step {step}")));
            }
            if moved < STEP_TOLERANCE {
                return Ok(Relaxation {
                    steps: step,
                    last_step: moved,
                });
            }
        }
        Err(self.failed(&format!("did not converge in {MAX_STEPS} steps")))
    }

    /// Time step and friction for the positions `pos`: the step shrinks with the
    /// tension `t = 1 − len0 / mean arc` as `DT / (1 + t)` (tension adds transverse
    /// stiffness; stable with a margin down to beta → 0); the friction scales with the
    /// natural length.
    fn step_and_friction(&self, pos: &[Vec3]) -> (f64, f64) {
        let (sum, count) = (0..self.n_vertices())
            .flat_map(|i| {
                let nb = &self.neighbours[self.offsets[i] as usize..self.offsets[i + 1] as usize];
                nb.iter().map(move |&j| (i, j as usize))
            })
            .fold((0.0, 0usize), |(s, n), (i, j)| {
                let c2 = dot(sub(pos[j], pos[i]), sub(pos[j], pos[i]));
                (s + arc_per_chord(c2) * c2.sqrt(), n + 1)
            });
        let mean_arc = sum / count.max(1) as f64;
        let tension = (1.0 - self.len0 / mean_arc).clamp(0.0, 1.0);
        let friction = (FRICTION_PER_RADIAN * self.len0).min(MAX_FRICTION);
        (DT / (1.0 + tension), friction)
    }

    fn failed(&self, what: &str) -> GridError {
        GridError::InvalidParameters(format!(
            "spring dynamics {what} (natural length {:.3e} rad, {} vertices): choose beta \
             closer to ICON's {ICON_BETA_SPRING} (its stable range is 0.9–1.11, narrower on \
             fine grids; far above it the springs buckle)",
            self.len0,
            self.n_vertices()
        ))
    }
}

/// `arc / chord` of two unit vectors a chord of squared length `c2` apart
/// (`arc = 2 asin(chord / 2)`): a series in `c2` for short chords (all but the coarsest
/// levels; truncation error below 1e-16), the arcsine otherwise.
#[inline]
fn arc_per_chord(c2: f64) -> f64 {
    if c2 < 0.04 {
        // 2 asin(c/2)/c = Σ_n C(2n,n) / (16^n (2n+1)) c^(2n)
        const K: [f64; 8] = [
            1.0,
            1.0 / 24.0,
            3.0 / 640.0,
            5.0 / 7168.0,
            35.0 / 294_912.0,
            63.0 / 2_883_584.0,
            231.0 / 54_525_952.0,
            143.0 / 167_772_160.0,
        ];
        K.iter().rev().fold(0.0, |acc, &k| acc * c2 + k)
    } else {
        let c = c2.sqrt();
        2.0 * (0.5 * c).min(1.0).asin() / c
    }
}

/// The larger of two numbers, NaN if either is NaN (so a NaN is never lost).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Relaxes `verts` (one bisection level of `cells`) with spring dynamics, then checks
/// that every cell is still counter-clockwise.
pub(crate) fn relax_level(verts: &mut Vec<Vec3>, cells: &[[u32; 3]], beta: f64) -> Result<()> {
    let net = SpringNetwork::new(verts.len(), cells, beta)?;
    net.relax(verts)?;
    if let Some(c) = cells.iter().position(|&[a, b, c]| {
        let (pa, pb, pc) = (verts[a as usize], verts[b as usize], verts[c as usize]);
        dot(pa, crate::space::cross(sub(pb, pa), sub(pc, pa))) <= 0.0
    }) {
        return Err(GridError::InvalidParameters(format!(
            "spring dynamics with beta {beta} folded cell {c} of {} (natural length {:.3e} rad); \
             choose beta closer to ICON's {ICON_BETA_SPRING}",
            cells.len(),
            net.len0
        )));
    }
    Ok(())
}
