//! The call order of one diffusion step, written once: the specialised programs in
//! ICON's order with their arguments mapped to the component's field names
//! ([`unfused_steps`]), the halo-exchange points, and the whole step linked from them
//! by `foehn::ir::link` ([`linked_program`]), which the fused and optimised schedules
//! run.
//!
//! Each [`Call`] keeps the program variant as specialised (`ir`, the program's own
//! argument names: compiled, and given to its reference) and a copy whose field and
//! scalar names are the component's (`renamed`: what runs, and what the CUDA backend
//! binds device fields to). The copy differs in names only, so code compiled for `ir`
//! runs it.

use super::Statics;
pub use crate::common::plan::{bound_fields, link_calls};
use crate::common::plan::{rename, renamed_call};
use crate::common::runner::{Call, Exchange, ExchangeMode, ReferenceFn, Step};
use crate::diffusion::references::{
    apply_diffusion_to_theta_and_exner as theta_ref, apply_diffusion_to_vn as vn_ref,
    apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence as w_ref,
    calculate_diagnostic_quantities_for_turbulence as diagnostics_ref,
    calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools as cold_pools_ref,
    calculate_nabla2_and_smag_coefficients_for_vn as nabla2_ref,
    mo_intp_rbf_rbf_vec_interpol_vertex as rbf_ref, scale_k as scale_k_ref,
};
use crate::diffusion::stencils::{
    apply_diffusion_to_theta_and_exner as theta, apply_diffusion_to_vn as vn_program,
    apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence as w_program,
    calculate_diagnostic_quantities_for_turbulence as diagnostics,
    calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools as cold_pools,
    calculate_nabla2_and_smag_coefficients_for_vn as nabla2,
    mo_intp_rbf_rbf_vec_interpol_vertex as rbf, scale_k,
};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::ir::link::{link, LinkSpec};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// The fields the unfused schedule passes between programs (the fused program's
/// temporaries): `diff_multfac_smag`, `u_vert`, `v_vert`, `kh_smag_e`, `kh_smag_ec`,
/// `z_nabla2_e`, `w_old`, `theta_v_in`.
pub fn intermediates() -> Vec<(&'static str, Vec<Dim>)> {
    vec![
        ("diff_multfac_smag", vec![K.into()]),
        ("u_vert", vec![VERTEX.into(), K.into()]),
        ("v_vert", vec![VERTEX.into(), K.into()]),
        ("kh_smag_e", vec![EDGE.into(), K.into()]),
        ("kh_smag_ec", vec![EDGE.into(), K.into()]),
        ("z_nabla2_e", vec![EDGE.into(), K.into()]),
        ("w_old", vec![CELL.into(), KHALF.into()]),
        ("theta_v_in", vec![CELL.into(), K.into()]),
    ]
}

/// The name under which the initial-run value of a K coefficient is kept
/// (`diff_multfac_vn` → `diff_multfac_vn_initial`, `smag_limit` likewise).
pub fn initial_name(name: &str) -> String {
    format!("{name}_initial")
}

/// Coefficients that differ in the initial run.
const INITIAL_RUN_FIELDS: [&str; 2] = ["diff_multfac_vn", "smag_limit"];

fn specialize(def: ProgramDef, variant: Variant) -> Result<ir::Program> {
    def.specialize(&variant)
}

/// A call of `ir` whose arguments `renames` (program name → component name) map to the
/// component's names; unlisted arguments keep their names. With `initial`, the
/// initial-run coefficients are bound instead of the regular ones.
pub(crate) fn call(
    ir: ir::Program,
    renames: &[(&str, &str)],
    reference: ReferenceFn,
    initial: bool,
) -> Call {
    let map = |name: &str| {
        let n = rename(renames, name);
        if initial && INITIAL_RUN_FIELDS.contains(&n) {
            initial_name(n)
        } else {
            n.to_string()
        }
    };
    renamed_call(ir, map, reference)
}

pub(crate) fn exchange(location: Location, fields: &[&'static str], mode: ExchangeMode) -> Step {
    Step::Exchange(Exchange {
        location,
        fields: fields.to_vec(),
        mode,
    })
}

/// `dst = src` over the whole field (ICON4Py `copy_field`).
pub fn copy_program(name: &'static str, location: Location, vertical: VKind) -> ProgramDef {
    ProgramDef::new(name, move |b| {
        let src = b.input("src", (location, vertical), F64);
        let dst = b.output("dst", (location, vertical), F64);
        b.stencil(name, &dst, &src);
    })
}

/// Reference of [`copy_program`].
pub fn copy_reference(_program: &ir::Program, _grid: &Grid, args: &mut Args) -> Result<()> {
    let src = args
        .field("src")
        .cloned()
        .ok_or_else(|| Error::Field("copy reference: missing `src`".into()))?;
    args.set_field("dst", src);
    Ok(())
}

/// Reference of `apply_diffusion_to_theta_and_exner` for either variant: the program's
/// reference applies the steep-slope term wherever `zd_diffcoef ≠ 0`, so the variant
/// without it is given zero coefficients.
fn theta_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    if program.variant.get("apply_zdiffusion_t") != Some(false.into()) {
        return theta_ref::reference(program, grid, args);
    }
    let coef = args
        .take_field("zd_diffcoef")
        .ok_or_else(|| Error::Field("theta reference: missing `zd_diffcoef`".into()))?;
    let mut zero = coef.clone();
    if let Some(v) = zero.as_f64_mut() {
        v.fill(0.0);
    }
    args.set_field("zd_diffcoef", zero);
    let r = theta_ref::reference(program, grid, args);
    args.set_field("zd_diffcoef", coef);
    r
}

/// Collects steps.
struct Steps {
    steps: Vec<Step>,
    initial: bool,
}

impl Steps {
    fn call(&mut self, ir: ir::Program, renames: &[(&str, &str)], reference: ReferenceFn) {
        self.steps.push(Step::Call(Box::new(call(
            ir,
            renames,
            reference,
            self.initial,
        ))));
    }

    fn exchange(&mut self, location: Location, fields: &[&'static str], mode: ExchangeMode) {
        self.steps.push(exchange(location, fields, mode));
    }
}

/// The unfused steps: each diffusion program in ICON's order, exchanges where ICON has them.
pub fn unfused_steps(s: &Statics, initial: bool) -> Result<Vec<Step>> {
    let v = Variant::new;
    let mut st = Steps {
        steps: vec![],
        initial,
    };
    let rbf_ir = specialize(rbf::program(), v())?;
    let rbf_of = |input: &'static str| {
        [
            ("p_e_in", input),
            ("ptr_coeff_1", "rbf_coeff_1"),
            ("ptr_coeff_2", "rbf_coeff_2"),
            ("p_u_out", "u_vert"),
            ("p_v_out", "v_vert"),
        ]
    };
    let uv = ["u_vert", "v_vert"];
    st.call(
        specialize(scale_k::program(), v())?,
        &[
            ("field", "enh_smag_fac"),
            ("factor", "dtime"),
            ("scaled_field", "diff_multfac_smag"),
        ],
        scale_k_ref::reference,
    );
    st.call(rbf_ir.clone(), &rbf_of("vn"), rbf_ref::reference);
    st.exchange(VERTEX, &uv, ExchangeMode::Blocking);
    st.call(
        specialize(nabla2::program(), v())?,
        &[],
        nabla2_ref::reference,
    );
    if s.turbulence_diagnostics() {
        let ir = specialize(diagnostics::program(), v())?;
        st.call(ir, &[], diagnostics_ref::reference);
    }
    // ICON exchanges z_nabla2_e only for type_vn_diffu > 1.
    st.exchange(EDGE, &["z_nabla2_e"], ExchangeMode::Blocking);
    st.call(rbf_ir, &rbf_of("z_nabla2_e"), rbf_ref::reference);
    st.exchange(VERTEX, &uv, ExchangeMode::Blocking);
    st.call(
        specialize(
            vn_program::program(),
            v().with("limited_area", s.limited_area),
        )?,
        &[
            ("primal_normal_vert_v1", "primal_normal_vert_x"),
            ("primal_normal_vert_v2", "primal_normal_vert_y"),
            ("area_edge", "edge_area"),
        ],
        vn_ref::reference,
    );
    st.exchange(EDGE, &["vn"], ExchangeMode::Start);
    st.call(
        specialize(copy_program("copy_w", CELL, KHALF), v())?,
        &[("src", "w"), ("dst", "w_old")],
        copy_reference,
    );
    st.call(
        specialize(
            w_program::program(),
            v().with("type_shear", s.type_shear)
                .with("nrdmax", s.nrdmax),
        )?,
        &[("area", "cell_area")],
        w_ref::reference,
    );
    st.exchange(EDGE, &["vn"], ExchangeMode::Wait);
    if s.apply_to_temperature {
        let ir = specialize(cold_pools::program(), v())?;
        st.call(ir, &[], cold_pools_ref::reference);
        st.call(
            specialize(copy_program("copy_theta_v", CELL, K), v())?,
            &[("src", "theta_v"), ("dst", "theta_v_in")],
            copy_reference,
        );
        st.call(
            specialize(
                theta::program(),
                v().with("apply_zdiffusion_t", s.apply_zdiffusion_t),
            )?,
            &[("vcoef", "zd_intcoef"), ("area", "cell_area")],
            theta_reference,
        );
    }
    // ICON: unless iforcing is NWP/AES and this is not the initial run.
    st.exchange(CELL, &["theta_v", "exner", "w"], ExchangeMode::Blocking);
    Ok(st.steps)
}

/// Name of the whole step as one program.
pub const STEP_NAME: &str = "diffusion_step";

/// The later versions of the re-written intermediates in [`linked_program`]: the second
/// `mo_intp_rbf_rbf_vec_interpol_vertex` call (of `z_nabla2_e`) writes `u_vert`/`v_vert`
/// after `calculate_nabla2_and_smag_coefficients_for_vn` read them.
pub const LINKED_VERSIONS: [(&str, &str); 2] = [
    ("u_vert", "u_vert_of_nabla2"),
    ("v_vert", "v_vert_of_nabla2"),
];

/// What [`linked_program`] declares beyond the calls: [`intermediates`] as temporaries,
/// [`LINKED_VERSIONS`] naming the re-written ones, and the variant's statics
/// ([`Statics::variant`], so that it also records `apply_to_temperature`).
pub fn link_spec(statics: &Statics) -> LinkSpec {
    let mut spec = LinkSpec {
        statics: statics.variant(),
        ..LinkSpec::new()
    };
    for (name, _) in intermediates() {
        spec = spec.intermediate(name);
    }
    for (name, later) in LINKED_VERSIONS {
        spec = spec.versions(name, &[later]);
    }
    spec
}

/// The whole diffusion step as one program named [`STEP_NAME`], linked
/// (`foehn::ir::link`) from the calls of [`unfused_steps`] ([`link_calls`]; the
/// initial-run coefficients bound with `initial`) with [`link_spec`].
pub fn linked_program(statics: &Statics, initial: bool) -> Result<ir::Program> {
    let steps = unfused_steps(statics, initial)?;
    Ok(link(STEP_NAME, &link_calls(&steps), &link_spec(statics))?)
}
