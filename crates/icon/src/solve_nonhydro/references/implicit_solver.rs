//! The plain-Rust reference of the vertically implicit solver shared by
//! [`vertically_implicit_solver_at_predictor_step`](super::vertically_implicit_solver_at_predictor_step)
//! and
//! [`vertically_implicit_solver_at_corrector_step`](super::vertically_implicit_solver_at_corrector_step):
//! one column at a time, written straight from the math of
//! [`stencils::implicit_solver`](crate::solve_nonhydro::stencils::implicit_solver),
//! independently of the DSL. The tridiagonal system is built explicitly
//! ([`tridiagonal_system`]) and solved by the Thomas algorithm ([`solve_tridiagonal`]).

use crate::common::constants::{CPD, CVD, RD};
use crate::solve_nonhydro::CVD_O_RD;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location};

/// The solver's input fields (ICON's short names; ICON4Py's in [`Fields::read`]).
pub struct Fields<'a> {
    /// `geofac_div` (`Cell, C2E`).
    pub geofac_div: &'a [f64],
    /// `mass_fl_e` (`Edge, K`).
    pub mass_fl_e: &'a [f64],
    /// `z_theta_v_fl_e` (`Edge, K`).
    pub z_theta_v_fl_e: &'a [f64],
    /// `z_th_ddz_exner_c` (`nlev` levels, level `k` for interface `k`).
    pub z_th_ddz_exner_c: &'a [f64],
    /// `rho_ic` (half levels).
    pub rho_ic: &'a [f64],
    /// `w_concorr_c` (half levels).
    pub w_concorr_c: &'a [f64],
    /// `vwind_expl_wgt` (`Cell`).
    pub vwind_expl_wgt: &'a [f64],
    /// `exner_nnow`.
    pub exner_nnow: &'a [f64],
    /// `rho_nnow`.
    pub rho_nnow: &'a [f64],
    /// `theta_v_nnow`.
    pub theta_v_nnow: &'a [f64],
    /// `w_nnow` (half levels).
    pub w_nnow: &'a [f64],
    /// `inv_ddqz_z_full`.
    pub inv_ddqz_z_full: &'a [f64],
    /// `vwind_impl_wgt` (`Cell`).
    pub vwind_impl_wgt: &'a [f64],
    /// `theta_v_ic` (half levels).
    pub theta_v_ic: &'a [f64],
    /// `exner_pr`.
    pub exner_pr: &'a [f64],
    /// `ddt_exner_phy`.
    pub ddt_exner_phy: &'a [f64],
    /// `rho_incr`.
    pub rho_incr: &'a [f64],
    /// `exner_incr`.
    pub exner_incr: &'a [f64],
    /// `ddqz_z_half` (half levels).
    pub ddqz_z_half: &'a [f64],
    /// `z_raylfac` (`K`).
    pub z_raylfac: &'a [f64],
    /// `exner_ref_mc`.
    pub exner_ref_mc: &'a [f64],
}

impl<'a> Fields<'a> {
    /// The fields of `args` under ICON4Py's names.
    pub fn read(args: &'a Args) -> Result<Fields<'a>> {
        let f = |name: &str| f64s(args, name);
        Ok(Fields {
            geofac_div: f("geofac_div")?,
            mass_fl_e: f("mass_flux_at_edges_on_model_levels")?,
            z_theta_v_fl_e: f("theta_v_flux_at_edges_on_model_levels")?,
            z_th_ddz_exner_c: f("nonhydro_buoy_at_cells_on_half_levels")?,
            rho_ic: f("rho_at_cells_on_half_levels")?,
            w_concorr_c: f("contravariant_correction_at_cells_on_half_levels")?,
            vwind_expl_wgt: f("exner_w_explicit_weight_parameter")?,
            exner_nnow: f("current_exner")?,
            rho_nnow: f("current_rho")?,
            theta_v_nnow: f("current_theta_v")?,
            w_nnow: f("current_w")?,
            inv_ddqz_z_full: f("inv_ddqz_z_full")?,
            vwind_impl_wgt: f("exner_w_implicit_weight_parameter")?,
            theta_v_ic: f("theta_v_at_cells_on_half_levels")?,
            exner_pr: f("perturbed_exner_at_cells_on_model_levels")?,
            ddt_exner_phy: f("exner_tendency_due_to_slow_physics")?,
            rho_incr: f("rho_iau_increment")?,
            exner_incr: f("exner_iau_increment")?,
            ddqz_z_half: f("ddqz_z_half")?,
            z_raylfac: f("rayleigh_damping_factor")?,
            exner_ref_mc: f("reference_exner_at_cells_on_model_levels")?,
        })
    }
}

/// The solver's settings: `dtime`, the IAU weight when `is_iau_active`, `nrdmax`.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// `dtime`.
    pub dtime: f64,
    /// `iau_wgt_dyn` when `is_iau_active`, else `None`.
    pub iau_wgt_dyn: Option<f64>,
    /// `end_index_of_damping_layer`.
    pub nrdmax: usize,
}

impl Setup {
    /// The settings of `program`'s variant (refusing a `rayleigh_type` other than 2)
    /// with the scalars of `args`.
    pub fn of(program: &ir::Program, args: &Args) -> Result<Setup> {
        let name = program.name.clone();
        let int = |static_name: &str| match program.variant.get(static_name) {
            Some(ir::StaticValue::I32(n)) => Ok(n),
            other => Err(Error::Variant {
                program: name.clone(),
                message: format!("static `{static_name}` must be an i32, not {other:?}"),
            }),
        };
        let rayleigh_type = int("rayleigh_type")?;
        if rayleigh_type != 2 {
            return Err(Error::Variant {
                program: name.clone(),
                message: format!("rayleigh_type {rayleigh_type} is not supported: only 2 (Klemp)"),
            });
        }
        let iau = program.variant.get("is_iau_active") == Some(true.into());
        Ok(Setup {
            dtime: scalar_f64(args, "dtime")?,
            iau_wgt_dyn: if iau {
                Some(scalar_f64(args, "iau_wgt_dyn")?)
            } else {
                None
            },
            nrdmax: int("end_index_of_damping_layer")?.max(0) as usize,
        })
    }
}

/// The integer static `name` of `program`'s variant.
pub fn static_i32(program: &ir::Program, name: &str) -> Result<i32> {
    match program.variant.get(name) {
        Some(ir::StaticValue::I32(n)) => Ok(n),
        other => Err(Error::Variant {
            program: program.name.clone(),
            message: format!("static `{name}` must be an i32, not {other:?}"),
        }),
    }
}

/// `Σ_{C2E} weights·x` at cell `c`, level `k` (`weights` a `(Cell, C2E)` field, `x` an
/// `(Edge, K)` one).
pub fn cell_sum_of_edges(
    grid: &Grid,
    weights: &[f64],
    x: &[f64],
    c: usize,
    k: usize,
) -> Result<f64> {
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let c2e = grid.topology.table(Connectivity::C2E);
    let mut sum = 0.0;
    for j in 0..3 {
        let e = c2e.neighbor(c, j).ok_or_else(|| {
            Error::Field(format!(
                "implicit solver reference: cell {c} has no C2E[{j}]"
            ))
        })?;
        sum += weights[c + nc * j] * x[e + ne * k];
    }
    Ok(sum)
}

/// The tridiagonal system `a(k)·w(k−1) + b(k)·w(k) + c(k)·w(k+1) = d(k)` of one column
/// on half levels `1 ≤ k < nlev` (entries 0 and `nlev` unused), with the explicit terms
/// it was built from.
#[derive(Clone, Debug)]
pub struct System {
    /// Sub-diagonal.
    pub a: Vec<f64>,
    /// Diagonal.
    pub b: Vec<f64>,
    /// Super-diagonal.
    pub c: Vec<f64>,
    /// Right-hand side.
    pub d: Vec<f64>,
    /// `z_contr_w_fl_l` (half levels).
    pub z_contr_w_fl_l: Vec<f64>,
    /// `z_alpha` (half levels).
    pub z_alpha: Vec<f64>,
    /// `z_beta` (full levels).
    pub z_beta: Vec<f64>,
    /// `z_rho_expl` (full levels).
    pub z_rho_expl: Vec<f64>,
    /// `z_exner_expl` (full levels).
    pub z_exner_expl: Vec<f64>,
}

/// The system of cell `c`: `w_expl(k)` is `z_w_expl` on half levels `[1, nlev)`.
pub fn tridiagonal_system(
    grid: &Grid,
    f: &Fields<'_>,
    c: usize,
    w_expl: &[f64],
    s: &Setup,
) -> Result<System> {
    let nc = grid.size(Location::Cell);
    let nlev = f.exner_nnow.len() / nc;
    let dt = s.dtime;
    let at = |k: usize| c + nc * k;
    let mut contr = vec![0.0; nlev + 1];
    let mut alpha = vec![0.0; nlev + 1];
    for k in 0..nlev {
        let i = at(k);
        if k >= 1 {
            contr[k] = f.rho_ic[i] * (-f.w_concorr_c[i] + f.vwind_expl_wgt[c] * f.w_nnow[i]);
        }
        alpha[k] = f.vwind_impl_wgt[c] * f.theta_v_ic[i] * f.rho_ic[i];
    }
    let (mut beta, mut rho_expl, mut exner_expl) =
        (vec![0.0; nlev], vec![0.0; nlev], vec![0.0; nlev]);
    for k in 0..nlev {
        let (i, below) = (at(k), at(k + 1));
        beta[k] = dt * RD * f.exner_nnow[i] / (CVD * f.rho_nnow[i] * f.theta_v_nnow[i])
            * f.inv_ddqz_z_full[i];
        let div_mass = cell_sum_of_edges(grid, f.geofac_div, f.mass_fl_e, c, k)?;
        let div_theta = cell_sum_of_edges(grid, f.geofac_div, f.z_theta_v_fl_e, c, k)?;
        rho_expl[k] =
            f.rho_nnow[i] - dt * f.inv_ddqz_z_full[i] * (div_mass + contr[k] - contr[k + 1]);
        exner_expl[k] = f.exner_pr[i]
            - beta[k]
                * (div_theta + f.theta_v_ic[i] * contr[k] - f.theta_v_ic[below] * contr[k + 1])
            + dt * f.ddt_exner_phy[i];
        if let Some(wgt) = s.iau_wgt_dyn {
            rho_expl[k] += wgt * f.rho_incr[i];
            exner_expl[k] += wgt * f.exner_incr[i];
        }
    }
    let (mut a, mut b, mut cc, mut d) = (
        vec![0.0; nlev + 1],
        vec![0.0; nlev + 1],
        vec![0.0; nlev + 1],
        vec![0.0; nlev + 1],
    );
    for k in 1..nlev {
        let i = at(k);
        let gamma = dt * CPD * f.vwind_impl_wgt[c] * f.theta_v_ic[i] / f.ddqz_z_half[i];
        a[k] = -gamma * beta[k - 1] * alpha[k - 1];
        cc[k] = -gamma * beta[k] * alpha[k + 1];
        b[k] = 1.0 + gamma * alpha[k] * (beta[k - 1] + beta[k]);
        d[k] = w_expl[k] - gamma * (exner_expl[k - 1] - exner_expl[k]);
    }
    Ok(System {
        a,
        b,
        c: cc,
        d,
        z_contr_w_fl_l: contr,
        z_alpha: alpha,
        z_beta: beta,
        z_rho_expl: rho_expl,
        z_exner_expl: exner_expl,
    })
}

/// `w` on half levels `[0, nlev)` solving `sys` with `w(0) = 0` (Thomas algorithm:
/// forward elimination from the top, back substitution from `nlev − 1`, where `c` is 0).
pub fn solve_tridiagonal(sys: &System) -> Vec<f64> {
    let n = sys.a.len() - 1;
    let (mut cp, mut dp) = (vec![0.0; n], vec![0.0; n]);
    for k in 1..n {
        let m = 1.0 / (sys.b[k] + sys.a[k] * cp[k - 1]);
        cp[k] = -sys.c[k] * m;
        dp[k] = (sys.d[k] - sys.a[k] * dp[k - 1]) * m;
    }
    let mut w = vec![0.0; n];
    let mut below = 0.0;
    for k in (0..n).rev() {
        w[k] = dp[k] + below * cp[k];
        below = w[k];
    }
    w
}

/// One column's results: `w` on half levels `[0, nlev]` (the surface value as given),
/// ρ, Exner pressure and θv on full levels, and the system.
pub struct Column {
    /// `w_new`.
    pub w: Vec<f64>,
    /// `rho_new`.
    pub rho: Vec<f64>,
    /// `exner_new`.
    pub exner: Vec<f64>,
    /// `theta_v_new`.
    pub theta_v: Vec<f64>,
    /// The system solved.
    pub system: System,
}

/// Solves cell `c`'s column: the system, Rayleigh damping on `(0, nrdmax]`, the
/// surface value `w_surface`, then ρ, Exner pressure and θv.
pub fn solve_column(
    grid: &Grid,
    f: &Fields<'_>,
    c: usize,
    w_expl: &[f64],
    w_surface: f64,
    s: &Setup,
) -> Result<Column> {
    let nc = grid.size(Location::Cell);
    let system = tridiagonal_system(grid, f, c, w_expl, s)?;
    let mut w = solve_tridiagonal(&system);
    let nlev = w.len();
    for (k, wk) in w.iter_mut().enumerate().take(s.nrdmax + 1).skip(1) {
        *wk *= f.z_raylfac[k];
    }
    w.push(w_surface);
    let (mut rho, mut exner, mut theta_v) = (vec![0.0; nlev], vec![0.0; nlev], vec![0.0; nlev]);
    for k in 0..nlev {
        let (i, below) = (c + nc * k, c + nc * (k + 1));
        rho[k] = system.z_rho_expl[k]
            - f.vwind_impl_wgt[c]
                * s.dtime
                * f.inv_ddqz_z_full[i]
                * (f.rho_ic[i] * w[k] - f.rho_ic[below] * w[k + 1]);
        let alpha = &system.z_alpha;
        exner[k] = system.z_exner_expl[k] + f.exner_ref_mc[i]
            - system.z_beta[k] * (alpha[k] * w[k] - alpha[k + 1] * w[k + 1]);
        theta_v[k] = f.rho_nnow[i]
            * f.theta_v_nnow[i]
            * ((exner[k] / f.exner_nnow[i] - 1.0) * CVD_O_RD + 1.0)
            / rho[k];
    }
    Ok(Column {
        w,
        rho,
        exner,
        theta_v,
        system,
    })
}

/// Writes `col` into the outputs `w_new` (half levels `[0, nlev]`), `rho_new`,
/// `exner_new`, `theta_v_new` (full levels) at cell `c`.
pub fn write_column(grid: &Grid, col: &Column, c: usize, out: &mut [Vec<f64>]) {
    let nc = grid.size(Location::Cell);
    let [w, rho, exner, theta_v, ..] = out else {
        unreachable!("the four solver outputs first")
    };
    for (k, &x) in col.w.iter().enumerate() {
        w[c + nc * k] = x;
    }
    for k in 0..col.rho.len() {
        rho[c + nc * k] = col.rho[k];
        exner[c + nc * k] = col.exner[k];
        theta_v[c + nc * k] = col.theta_v[k];
    }
}

/// `z_w_expl(k) = w_nnow + dtime·(ddt_w_adv(k) − cpd·z_th_ddz_exner_c(k))` of cell `c` on
/// half levels `[1, nlev)` (0 elsewhere), `ddt_w_adv(k)` the advective tendency.
pub fn w_explicit_term(
    grid: &Grid,
    f: &Fields<'_>,
    c: usize,
    s: &Setup,
    ddt_w_adv: impl Fn(usize) -> f64,
) -> Vec<f64> {
    let nc = grid.size(Location::Cell);
    let nlev = f.exner_nnow.len() / nc;
    let mut out = vec![0.0; nlev + 1];
    for (k, x) in out.iter_mut().enumerate().take(nlev).skip(1) {
        let i = c + nc * k;
        *x = f.w_nnow[i] + s.dtime * (ddt_w_adv(i) - CPD * f.z_th_ddz_exner_c[i]);
    }
    out
}
