//! `apply_diffusion_to_theta_and_exner` (diffusion step 10, ICON `mo_nh_diffusion`
//! stencils 13–16): Smagorinsky diffusion of θv, optionally the truly horizontal
//! diffusion over steep slopes, and the matching Exner-pressure update.
//!
//! On cells `[NUDGING, LOCAL end)` × all levels, with `θ = theta_v_in`:
//!
//! ```text
//! z_nabla2_e(e) = kh_smag_e · inv_dual_edge_length · (θ(E2C[1]) − θ(E2C[0]))
//! z_temp        = Σ_{C2E} z_nabla2_e · geofac_div
//! if apply_zdiffusion_t, where zd_diffcoef ≠ 0:
//!   z_temp += zd_diffcoef · (θ·geofac_n2s_c + Σ_{j<3} geofac_n2s_nbh[j] ·
//!             (vcoef[j]·θ(C2E2C[j], k+off[j]) + (1 − vcoef[j])·θ(C2E2C[j], k+off[j]+1)))
//! theta_v = θ + area · z_temp
//! exner  *= 1 + rd_o_cvd · (theta_v/θ − 1)
//! ```
//!
//! `off = zd_vertoffset` is a data-dependent vertical offset read through a neighbour
//! shift. As in ICON4Py, `z_nabla2_e` is evaluated inside the cell operator (recomputed
//! per cell edge), so no edge domain is involved.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "apply_diffusion_to_theta_and_exner";

/// First cell updated.
pub const CELL_START: Zone = Zone::Nudging(1);
/// End (exclusive) of the updated cells.
pub const CELL_END: Zone = Zone::Local;

/// ICON4Py `_calculate_nabla2_for_z` (edges): `kh_smag_e·inv_dual_edge_length·(θ(E2C[1]) − θ(E2C[0]))`.
pub fn calculate_nabla2_for_z(
    kh_smag_e: &Expr,
    inv_dual_edge_length: &Expr,
    theta_v: &Expr,
) -> Expr {
    kh_smag_e * inv_dual_edge_length * (theta_v.at(E2C, 1) - theta_v.at(E2C, 0))
}

/// ICON4Py `_calculate_nabla2_of_theta` (cells): `Σ_{C2E} z_nabla2_e·geofac_div`.
pub fn calculate_nabla2_of_theta(z_nabla2_e: &Expr, geofac_div: &Expr) -> Expr {
    (z_nabla2_e.shift(C2E) * geofac_div).sum_over(C2E)
}

/// ICON4Py `_truly_horizontal_diffusion_nabla_of_theta_over_steep_points` (cells):
/// `z_temp + zd_diffcoef·(θ·geofac_n2s_c + Σ_j geofac_n2s_nbh[j]·(vcoef[j]·θ_j(k+off_j) +
/// (1−vcoef[j])·θ_j(k+off_j+1)))` with `θ_j` the neighbour `C2E2C[j]`.
pub fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: &Expr,
    zd_diffcoef: &Expr,
    geofac_n2s_c: &Expr,
    geofac_n2s_nbh: &Expr,
    vcoef: &Expr,
    theta_v: &Expr,
    z_temp: &Expr,
) -> Expr {
    let sum_tmp = (0..3).fold(theta_v * geofac_n2s_c, |acc, j| {
        let off = zd_vertoffset.pick(j);
        let theta_j = theta_v.at(C2E2C, j).k_offset(&off);
        let theta_j_m1 = theta_v.at(C2E2C, j).k_offset(&off + 1);
        let w = vcoef.pick(j);
        acc + geofac_n2s_nbh.pick(j) * (&w * theta_j + (1.0 - &w) * theta_j_m1)
    });
    z_temp + zd_diffcoef * sum_tmp
}

/// ICON4Py `_update_theta_and_exner`: `(θ + area·z_temp, exner·(1 + rd_o_cvd·(θ_new/θ − 1)))`.
pub fn update_theta_and_exner(
    z_temp: &Expr,
    area: &Expr,
    theta_v: &Expr,
    exner: &Expr,
    rd_o_cvd: &Expr,
) -> Expr {
    let theta_new = theta_v + area * z_temp;
    let exner_new = exner * (1.0 + rd_o_cvd * (&theta_new / theta_v - 1.0));
    tuple((theta_new, exner_new))
}

/// Field operator of the whole program: `(theta_v, exner)` from `theta_v_in` (the θv
/// before the step), with the steep-slope term where `zd_diffcoef ≠ 0` when
/// `apply_zdiffusion_t`.
#[allow(clippy::too_many_arguments)]
pub fn apply_diffusion_to_theta_and_exner_op(
    apply_zdiffusion_t: bool,
    kh_smag_e: &Expr,
    inv_dual_edge_length: &Expr,
    theta_v_in: &Expr,
    geofac_div: &Expr,
    zd_vertoffset: &Expr,
    zd_diffcoef: &Expr,
    geofac_n2s_c: &Expr,
    geofac_n2s_nbh: &Expr,
    vcoef: &Expr,
    area: &Expr,
    exner: &Expr,
    rd_o_cvd: &Expr,
) -> Expr {
    let z_nabla2_e = calculate_nabla2_for_z(kh_smag_e, inv_dual_edge_length, theta_v_in);
    let mut z_temp = calculate_nabla2_of_theta(&z_nabla2_e, geofac_div);
    if apply_zdiffusion_t {
        // Only where zd_diffcoef ≠ 0 (the steep points of ICON's index list).
        z_temp = where_(
            zd_diffcoef.ne(0.0),
            truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
                zd_vertoffset,
                zd_diffcoef,
                geofac_n2s_c,
                geofac_n2s_nbh,
                vcoef,
                theta_v_in,
                &z_temp,
            ),
            &z_temp,
        );
    }
    update_theta_and_exner(&z_temp, area, theta_v_in, exner, rd_o_cvd)
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Smagorinsky coefficient.
    pub kh_smag_e: &'a Expr,
    /// Inverse dual edge length.
    pub inv_dual_edge_length: &'a Expr,
    /// θv before the step.
    pub theta_v_in: &'a Expr,
    /// Divergence weights.
    pub geofac_div: &'a Expr,
    /// Vertical offsets of the steep-slope neighbours.
    pub zd_vertoffset: &'a Expr,
    /// Steep-slope diffusion coefficient (zero off the steep points).
    pub zd_diffcoef: &'a Expr,
    /// Laplacian weight of the cell itself.
    pub geofac_n2s_c: &'a Expr,
    /// Laplacian weights of the neighbours.
    pub geofac_n2s_nbh: &'a Expr,
    /// Vertical interpolation weights of the steep-slope neighbours.
    pub vcoef: &'a Expr,
    /// Cell area.
    pub area: &'a Expr,
    /// Output: the diffused θv.
    pub theta_v: &'a Expr,
    /// Exner pressure, updated in place.
    pub exner: &'a Expr,
    /// `R_d/c_vd` (scalar).
    pub rd_o_cvd: &'a Expr,
}

/// Adds the program's stencil `apply_diffusion_to_theta_and_exner` to `b` on cells
/// `[CELL_START, CELL_END)` × `[0, nlev)`, with the steep-slope term when
/// `apply_zdiffusion_t` (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, apply_zdiffusion_t: bool) {
    b.stencil(
        "apply_diffusion_to_theta_and_exner",
        (f.theta_v, f.exner),
        apply_diffusion_to_theta_and_exner_op(
            apply_zdiffusion_t,
            f.kh_smag_e,
            f.inv_dual_edge_length,
            f.theta_v_in,
            f.geofac_div,
            f.zd_vertoffset,
            f.zd_diffcoef,
            f.geofac_n2s_c,
            f.geofac_n2s_nbh,
            f.vcoef,
            f.area,
            f.exner,
            f.rd_o_cvd,
        ),
    )
    .horizontal(start(CELL_START), end(CELL_END))
    .vertical(0, nlev());
}

/// The DSL program; static `apply_zdiffusion_t` selects the steep-slope term.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let apply_zdiffusion_t = b.static_bool("apply_zdiffusion_t");
        let f = Handles {
            kh_smag_e: &b.input("kh_smag_e", (EDGE, K), F64),
            inv_dual_edge_length: &b.input("inv_dual_edge_length", EDGE, F64),
            theta_v_in: &b.input("theta_v_in", (CELL, K), F64),
            geofac_div: &b.input("geofac_div", (CELL, C2E), F64),
            zd_vertoffset: &b.input("zd_vertoffset", (CELL, C2E2C, K), I32),
            zd_diffcoef: &b.input("zd_diffcoef", (CELL, K), F64),
            geofac_n2s_c: &b.input("geofac_n2s_c", CELL, F64),
            geofac_n2s_nbh: &b.input("geofac_n2s_nbh", (CELL, C2E2C), F64),
            vcoef: &b.input("vcoef", (CELL, C2E2C, K), F64),
            area: &b.input("area", CELL, F64),
            theta_v: &b.output("theta_v", (CELL, K), F64),
            exner: &b.inout("exner", (CELL, K), F64),
            rd_o_cvd: &b.scalar("rd_o_cvd", F64),
        };
        add_stencils(b, &f, apply_zdiffusion_t);
    })
    .static_bool("apply_zdiffusion_t")
}
