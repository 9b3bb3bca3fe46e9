//! `mo_intp_rbf_rbf_vec_interpol_vertex`: RBF reconstruction of the horizontal wind
//! vector at vertices from the normal components at the surrounding edges (ICON
//! `rbf_vec_interpol_vertex`).
//!
//! For every vertex `v` in `[start(LATERAL_BOUNDARY_LEVEL_2), end(LOCAL))` and every level:
//!
//! ```text
//! p_u_out(v, k) = Σ_{j ∈ V2E(v)} ptr_coeff_1(v, j) · p_e_in(V2E[v, j], k)
//! p_v_out(v, k) = Σ_{j ∈ V2E(v)} ptr_coeff_2(v, j) · p_e_in(V2E[v, j], k)
//! ```
//!
//! Pentagon vertices have 5 edges: the sixth slot is a skip value and adds nothing.
//! Diffusion calls the program twice per step: on `vn`, then on `z_nabla2_e`.

use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::SplitMix64;

/// Program name.
pub const NAME: &str = "mo_intp_rbf_rbf_vec_interpol_vertex";

/// Field operator: one component of the RBF vector reconstruction,
/// `Σ_{V2E} coeff · p_e_in(V2E)`.
pub fn rbf_vec_interpol_vertex_component(p_e_in: &Expr, coeff: &Expr) -> Expr {
    (coeff * p_e_in.shift(V2E)).sum_over(V2E)
}

/// Adds a stencil `name` to `b` writing both components, `(p_u_out, p_v_out)`, of the
/// RBF reconstruction of `p_e_in` on vertices `[LATERAL_BOUNDARY_LEVEL_2, LOCAL end)` ×
/// `[0, nlev)` (as ICON4Py's `Diffusion` calls it; shared by [`program`] and the fused
/// diffusion step, which calls it twice).
pub fn add_stencils(
    b: &mut ProgramBuilder,
    name: &str,
    p_e_in: &Expr,
    ptr_coeff: (&Expr, &Expr),
    outputs: (&Expr, &Expr),
) {
    b.stencil(
        name,
        outputs,
        tuple((
            rbf_vec_interpol_vertex_component(p_e_in, ptr_coeff.0),
            rbf_vec_interpol_vertex_component(p_e_in, ptr_coeff.1),
        )),
    )
    .horizontal(start(Zone::LateralBoundary(2)), end(Zone::Local))
    .vertical(0, nlev());
}

/// The DSL program: both components in one stencil, `rbf_vec_interpol_vertex`
/// ([`add_stencils`]).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let p_e_in = b.input("p_e_in", (EDGE, K), F64);
        let ptr_coeff_1 = b.input("ptr_coeff_1", (VERTEX, V2E), F64);
        let ptr_coeff_2 = b.input("ptr_coeff_2", (VERTEX, V2E), F64);
        let p_u_out = b.output("p_u_out", (VERTEX, K), F64);
        let p_v_out = b.output("p_v_out", (VERTEX, K), F64);
        add_stencils(
            b,
            "rbf_vec_interpol_vertex",
            &p_e_in,
            (&ptr_coeff_1, &ptr_coeff_2),
            (&p_u_out, &p_v_out),
        );
    })
}

/// Plain-Rust reference: loops over the vertex range and the valid V2E neighbours.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let zones = grid.zones.of(Location::Vertex);
    let (v0, v1) = (
        zones.start(Zone::LateralBoundary(2))?,
        zones.end(Zone::Local)?,
    );
    let v2e = grid.topology.table(Connectivity::V2E);
    let (nv, ne) = (grid.size(Location::Vertex), grid.size(Location::Edge));
    let width = v2e.width();
    with_outputs(args, &["p_u_out", "p_v_out"], |args, out| {
        let p_e_in = f64s(args, "p_e_in")?;
        let c1 = f64s(args, "ptr_coeff_1")?;
        let c2 = f64s(args, "ptr_coeff_2")?;
        let nlev = p_e_in.len() / ne;
        for k in 0..nlev {
            for v in v0..v1 {
                let (mut u, mut w) = (0.0, 0.0);
                for j in 0..width {
                    let Some(e) = v2e.neighbor(v, j) else {
                        continue; // pentagon: 5 edges only
                    };
                    let x = p_e_in[e + ne * k];
                    u += c1[v + nv * j] * x;
                    w += c2[v + nv * j] * x;
                }
                out[0][v + nv * k] = u;
                out[1][v + nv * k] = w;
            }
        }
        Ok(())
    })
}

/// Uniform in `±[lo, hi)` with a random sign (never zero).
fn signed(rng: &mut SplitMix64, lo: f64, hi: f64) -> Scalar {
    let x = rng.range_f64(lo, hi);
    Scalar::F64(if rng.chance(0.5) { x } else { -x })
}

/// Realistic random inputs: `p_e_in` a normal wind of ±[0.5, 30) m/s; RBF coefficients
/// of either sign and order one (ICON's `rbf_vec_coeff_v`), non-zero also in the skipped
/// pentagon slots (so a reference that read them would differ).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = foehn_testkit::random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0002);
    let mut field = |dims: Vec<Dim>, lo: f64, hi: f64| {
        Field::from_fn(grid, nlev, dims, F64, |_| signed(&mut rng, lo, hi))
    };
    args.set_field("p_e_in", field(vec![EDGE.into(), K.into()], 0.5, 30.0));
    args.set_field(
        "ptr_coeff_1",
        field(vec![VERTEX.into(), V2E.into()], 0.05, 1.0),
    );
    args.set_field(
        "ptr_coeff_2",
        field(vec![VERTEX.into(), V2E.into()], 0.05, 1.0),
    );
    args.set_field("p_u_out", field(vec![VERTEX.into(), K.into()], 0.5, 30.0));
    args.set_field("p_v_out", field(vec![VERTEX.into(), K.into()], 0.5, 30.0));
    args
}

/// Catalog entry; ICON calls the program twice per diffusion step (on `vn` and on
/// `z_nabla2_e`).
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference).calls_per_step(2.0)
}
