//! Random well-typed programs: shifts, neighbour reductions over tables with skip
//! values, single-neighbour reads, `where`, `concat_where` on zones and levels,
//! guarded vertical and data-dependent shifts, half/full level conversions, casts,
//! temporaries, tuple outputs and scans. Every generated program type-checks and
//! runs without runtime errors on any global grid with at least 3 levels (reads
//! through skip values happen only inside reductions; vertical shifts are guarded).

use super::rng::SplitMix64;
use foehn::dsl::prelude::*;
use foehn::ir::{self, Role, Scalar};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Knobs of the generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenConfig {
    /// Maximum expression depth.
    pub max_depth: usize,
    /// Maximum number of stencils per program.
    pub max_stencils: usize,
    /// Maximum nesting of neighbour accesses (each multiplies the work by the width).
    pub max_neighbor_nesting: usize,
    /// Generate scans.
    pub scans: bool,
    /// Generate half-level fields and conversions.
    pub half_levels: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            max_depth: 4,
            max_stencils: 3,
            max_neighbor_nesting: 2,
            scans: true,
            half_levels: true,
        }
    }
}

/// A generated program: the seed and configuration it came from and its definition.
#[derive(Debug, Clone)]
pub struct RandomProgram {
    /// The seed.
    pub seed: u64,
    /// The configuration.
    pub config: GenConfig,
    /// The program (rebuilding it gives the same program every time).
    pub def: ProgramDef,
}

impl RandomProgram {
    /// Generates the program for `seed`.
    pub fn generate(seed: u64, config: GenConfig) -> RandomProgram {
        let cfg = config.clone();
        let def = ProgramDef::new(&format!("random_{seed:016x}"), move |b| {
            build(b, seed, &cfg)
        });
        RandomProgram { seed, config, def }
    }
}

/// Random arguments for `program` on `grid` with `nlev` levels: floats in `[0.5, 1.5)`
/// (never zero), integers in `[1, 5)`, vertical offset fields (named `koff*`) in
/// `{-1, 0, 1}`, fair booleans; outputs are filled randomly too.
pub fn random_args(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut rng = SplitMix64::new(seed);
    let mut args = Args::new().with_nlev(nlev);
    for d in program.fields.iter().filter(|d| d.role != Role::Temp) {
        let (lo, hi) = if d.name.starts_with("koff") {
            (-1.0, 2.0)
        } else if d.ty.dtype == I32 {
            (1.0, 5.0)
        } else {
            (0.5, 1.5)
        };
        args.set_field(
            &d.name,
            super::random_field(&mut rng, grid, nlev, d.ty.dims.list(), d.ty.dtype, lo, hi),
        );
    }
    for s in &program.scalars {
        let v = match s.dtype {
            DType::F64 => Scalar::F64(rng.range_f64(0.5, 1.5)),
            DType::F32 => Scalar::F32(rng.range_f64(0.5, 1.5) as f32),
            DType::I32 => Scalar::I32(1 + rng.below(4) as i32),
            DType::Bool => Scalar::Bool(rng.chance(0.5)),
        };
        args.set_scalar(&s.name, v);
    }
    args
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Target {
    h: Location,
    v: Option<VKind>,
    dtype: DType,
}

#[derive(Debug, Clone, Copy)]
struct Ctx {
    depth: usize,
    nbr: usize,
    scan_ok: bool,
}

struct Gen<'b> {
    rng: SplitMix64,
    b: &'b mut ProgramBuilder,
    cfg: GenConfig,
    inputs: Vec<(Target, Expr)>,
    readable: Vec<(Target, Expr)>,
    names: usize,
}

fn build(b: &mut ProgramBuilder, seed: u64, cfg: &GenConfig) {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        b,
        cfg: cfg.clone(),
        inputs: vec![],
        readable: vec![],
        names: 0,
    };
    let n = 1 + g.rng.below(cfg.max_stencils.max(1));
    for i in 0..n {
        g.stencil(i);
    }
}

impl Gen<'_> {
    fn name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn dims(t: Target) -> Vec<Dim> {
        let mut d = vec![Dim::H(t.h)];
        d.extend(t.v.map(Dim::V));
        d
    }

    fn stencil(&mut self, i: usize) {
        let h = *self.rng.pick(&Location::ALL);
        let v = match self.rng.below(if self.cfg.half_levels { 5 } else { 4 }) {
            0 => None,
            4 => Some(KHALF),
            _ => Some(K),
        };
        let dtype = if self.rng.chance(0.2) { F32 } else { F64 };
        let t = Target { h, v, dtype };
        let temp = i + 1 < self.cfg.max_stencils && self.rng.chance(0.3);
        let n_out = if !temp && self.rng.chance(0.2) { 2 } else { 1 };
        let mut outs = vec![];
        for _ in 0..n_out {
            let name = self.name(if temp { "tmp" } else { "out" });
            let e = if temp {
                self.b.temporary(&name, Self::dims(t), dtype)
            } else {
                self.b.output(&name, Self::dims(t), dtype)
            };
            outs.push(e);
        }
        let ctx = Ctx {
            depth: self.cfg.max_depth,
            nbr: 0,
            scan_ok: self.cfg.scans,
        };
        let exprs: Vec<Expr> = (0..n_out).map(|_| self.gen(t, ctx)).collect();
        let expr = if n_out == 1 {
            exprs[0].clone()
        } else {
            tuple(exprs)
        };
        let name = format!("s{i}");
        let decl = self.b.stencil(&name, outs.clone(), expr);
        if !temp {
            if self.rng.chance(0.5) {
                let (a, z) = (self.rng.below(5) as i64, self.rng.below(5) as i64);
                decl.horizontal(start(Zone::Interior) + a, end(Zone::Local) - z);
            }
            if v.is_some() && self.rng.chance(0.5) {
                let (a, z) = (self.rng.below(2) as i64, self.rng.below(2) as i64);
                decl.vertical(a, Bound::size() - z);
            }
        }
        for o in outs {
            self.readable.push((t, o));
        }
    }

    fn leaf(&mut self, t: Target) -> Expr {
        let existing: Vec<Expr> = self
            .readable
            .iter()
            .chain(&self.inputs)
            .filter(|(x, _)| *x == t)
            .map(|(_, e)| e.clone())
            .collect();
        match self.rng.below(10) {
            0 if t.dtype == F64 => Expr::from(self.rng.range_f64(0.5, 1.5)),
            0 if t.dtype == F32 => f32c(self.rng.range_f64(0.5, 1.5) as f32),
            1 if t.dtype == F64 => {
                let s = self.b.scalar(&format!("scalar{}", self.names + 1), F64);
                self.names += 1;
                s
            }
            2 if t.dtype == F64 => index(t.h).expr().cast(F64) * 1e-3 + 1.0,
            3..=5 if !existing.is_empty() => self.rng.pick(&existing).clone(),
            _ => {
                let name = self.name("in");
                let e = self.b.input(&name, Self::dims(t), t.dtype);
                self.inputs.push((t, e.clone()));
                e
            }
        }
    }

    fn region(&mut self, t: Target) -> Option<ir::Region> {
        match (self.rng.below(3), t.v) {
            (0, Some(v)) => Some(index(v).lt(1 + self.rng.below(3) as i64)),
            (1, Some(v)) => Some(index(v).ge(Bound::size() - 1 - self.rng.below(2) as i64)),
            _ => {
                let r = self.rng.below(30) as i64;
                Some(if self.rng.chance(0.5) {
                    index(t.h).lt(start(Zone::Interior) + r)
                } else {
                    index(t.h).ge(end(Zone::Local) - r)
                })
            }
        }
    }

    fn gen(&mut self, t: Target, ctx: Ctx) -> Expr {
        if ctx.depth == 0 {
            return self.leaf(t);
        }
        let sub = Ctx {
            depth: ctx.depth - 1,
            ..ctx
        };
        let noscan = Ctx {
            scan_ok: false,
            ..sub
        };
        let float = t.dtype.is_float();
        match self.rng.below(16) {
            0 => self.leaf(t),
            1 | 2 => {
                let (a, b) = (self.gen(t, sub), self.gen(t, sub));
                match self.rng.below(3) {
                    0 => a + b,
                    1 => a - b,
                    _ => a * b,
                }
            }
            3 if float => self.gen(t, sub) / (self.gen(t, sub).abs() + 1.0),
            4 if float => {
                let a = self.gen(t, sub);
                match self.rng.below(4) {
                    0 => a.sin(),
                    1 => a.cos(),
                    2 => a.tanh(),
                    _ => a.abs().sqrt(),
                }
            }
            5 => {
                let (a, b) = (self.gen(t, sub), self.gen(t, sub));
                if self.rng.chance(0.5) {
                    a.min(b)
                } else {
                    a.max(b)
                }
            }
            6 => {
                let mask = self.gen(t, sub).lt(self.gen(t, sub));
                where_(mask, self.gen(t, sub), self.gen(t, sub))
            }
            7 => match self.region(t) {
                Some(r) => concat_where(r, self.gen(t, sub), self.gen(t, sub)),
                None => self.leaf(t),
            },
            8 if t.v.is_some() => {
                let v = t.v.unwrap();
                let (x, y) = (
                    broadcast(self.gen(t, noscan), Self::dims(t)),
                    self.gen(t, sub),
                );
                if self.rng.chance(0.5) {
                    concat_where(index(v).ge(1), x.k_shift(-1), y)
                } else {
                    concat_where(index(v).lt(Bound::size() - 1), x.k_shift(1), y)
                }
            }
            9 if t.v.is_some() => {
                let v = t.v.unwrap();
                let koff = self.name("koff");
                let koff = self
                    .b
                    .input(&koff, Self::dims(Target { dtype: I32, ..t }), I32);
                let (x, y) = (
                    broadcast(self.gen(t, noscan), Self::dims(t)),
                    self.gen(t, sub),
                );
                concat_where(index(v).in_range(1, Bound::size() - 1), x.k_offset(koff), y)
            }
            10 | 11 if ctx.nbr < self.cfg.max_neighbor_nesting => self.neighbor(
                t,
                Ctx {
                    nbr: ctx.nbr + 1,
                    ..noscan
                },
            ),
            12 => {
                let other = Target {
                    dtype: if t.dtype == F64 { F32 } else { F64 },
                    ..t
                };
                if float {
                    self.gen(other, sub).cast(t.dtype)
                } else {
                    self.leaf(t)
                }
            }
            13 if t.v.is_some() && self.cfg.half_levels => {
                if t.v == Some(K) {
                    let half = Target {
                        v: Some(KHALF),
                        ..t
                    };
                    let x = broadcast(self.gen(half, noscan), Self::dims(half));
                    if self.rng.chance(0.5) {
                        x.as_full()
                    } else {
                        x.k_shift(1).as_full()
                    }
                } else {
                    let full = Target { v: Some(K), ..t };
                    let x = broadcast(self.gen(full, noscan), Self::dims(full));
                    concat_where(index(KHALF).lt(nlev()), x.as_half(), self.gen(t, sub))
                }
            }
            14 if t.v.is_some() => self.gen(Target { v: None, ..t }, sub) + self.gen(t, sub),
            15 if ctx.scan_ok && t.v.is_some() && float => {
                let v = t.v.unwrap();
                let body = self.gen(t, noscan);
                let dir = if self.rng.chance(0.5) {
                    FORWARD
                } else {
                    BACKWARD
                };
                let init = Expr::constant(Scalar::F64(0.25).cast(t.dtype));
                scan(v, dir, init, |c| &c[0] * 0.5 + &body)
            }
            _ => self.leaf(t),
        }
    }

    fn neighbor(&mut self, t: Target, ctx: Ctx) -> Expr {
        let conns: Vec<Connectivity> = Connectivity::ALL
            .into_iter()
            .filter(|c| c.from() == t.h)
            .collect();
        let conn = *self.rng.pick(&conns);
        let src = Target { h: conn.to(), ..t };
        let x = self.gen(src, ctx);
        // Tables with skip values on global grids: V2E, V2C, V2E2V (pentagons).
        let has_skips = conn.from() == Location::Vertex;
        if !has_skips && self.rng.chance(0.3) {
            return x.at(conn, self.rng.below(conn.width()));
        }
        let mut body = x.shift(conn);
        if t.dtype.is_float() && self.rng.chance(0.6) {
            let wname = self.name("w");
            let mut dims = vec![Dim::H(t.h), Dim::Local(conn)];
            if self.rng.chance(0.5) {
                dims.extend(t.v.map(Dim::V));
            }
            let w = self.b.input(&wname, dims, t.dtype);
            body = body * w;
        }
        match self.rng.below(3) {
            0 => body.max_over(conn),
            1 => body.min_over(conn),
            _ => body.sum_over(conn),
        }
    }
}
