//! The checks of [`RunConfig::resolve`](super::RunConfig::resolve): every option of
//! every section, with a message that names the option (`[section] key` and its flag)
//! and says what it must be.

use super::interval::{fraction, whole_steps, Interval, SECONDS_PER_DAY};
use super::{
    grid_kind_of_name, invalid, CflSection, ConfigError, RunConfig, RunSection,
    EXTRA_WATCH_MODE_SUBSTEPS, MAX_LEVELS,
};
use crate::initial::jw::JwConfig;
use foehn_icon::diffusion::config::DiffusionConfig;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::solve_nonhydro::config::NonHydrostaticConfig;
use std::path::Path;

/// `[run]`: grid, levels, dtime and substeps.
pub(super) fn check_run(run: &RunSection, dtime: f64) -> Result<(), ConfigError> {
    if run.grid.trim().is_empty() {
        return Err(invalid(
            "[run] grid (--grid)",
            "\"\"",
            "name a grid (e.g. r2b4) or a grid file",
        ));
    }
    grid_kind_of_name(&run.grid)?;
    if !(1..=MAX_LEVELS).contains(&run.levels) {
        return Err(invalid(
            "[run] levels (--levels)",
            run.levels,
            format!("foehn runs 1 to {MAX_LEVELS} levels (ICON's JW test: 35)"),
        ));
    }
    if !(dtime.is_finite() && dtime > 0.0) {
        return Err(invalid(
            "[run] dtime (--dtime)",
            dtime,
            "the time step must be a positive number of seconds (leave it out for ICON's \
             time step for the grid)",
        ));
    }
    if run.ndyn_substeps == 0 {
        return Err(invalid(
            "[run] ndyn_substeps (--substeps)",
            0,
            "at least one dynamics substep per time step (ICON: 5)",
        ));
    }
    Ok(())
}

/// The whole number of `dtime` steps in `days`, or why not.
pub(super) fn days_to_steps(days: f64, dtime: f64) -> Result<u64, ConfigError> {
    let key = "[run] days (--days)";
    if !(days.is_finite() && days > 0.0) {
        return Err(invalid(key, days, "a positive number of simulated days"));
    }
    whole_steps(days * SECONDS_PER_DAY, dtime).ok_or_else(|| {
        invalid(
            key,
            days,
            format!(
                "{} time steps of {dtime} s: give days that are a multiple of dtime, or the \
                 run length in steps (--steps)",
                fraction(days * SECONDS_PER_DAY / dtime)
            ),
        )
    })
}

/// The output file and its interval: time steps between outputs.
pub(super) fn check_output(
    path: &str,
    interval: &Interval,
    dtime: f64,
) -> Result<u64, ConfigError> {
    if path.trim().is_empty() {
        return Err(invalid(
            "[run] output (--output)",
            "\"\"",
            "name the NetCDF file to write (or leave the option out for no output)",
        ));
    }
    if Path::new(path).is_dir() {
        return Err(invalid(
            "[run] output (--output)",
            path,
            "is a directory: name a file in it (e.g. jw.nc)",
        ));
    }
    interval
        .steps(dtime, "the output interval")
        .map_err(|m| invalid("[run] output_interval (--output-interval)", interval, m))
}

/// The output's variable selection: known names, at least one, none twice.
pub(super) fn check_output_variables(names: &[String]) -> Result<(), ConfigError> {
    let key = "[run] output_variables (--output-vars)";
    let known = || {
        crate::output::VARIABLES
            .iter()
            .map(|v| v.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if names.is_empty() {
        return Err(invalid(
            key,
            "[]",
            format!("name at least one of {}", known()),
        ));
    }
    for (i, name) in names.iter().enumerate() {
        if crate::output::variable(name).is_none() {
            return Err(invalid(
                key,
                name,
                format!("not an output variable; choose from {}", known()),
            ));
        }
        if names[..i].contains(name) {
            return Err(invalid(key, name, "named twice"));
        }
    }
    Ok(())
}

/// `[cfl]`: a positive threshold, at least as many substeps allowed as nominal.
pub(super) fn check_cfl(cfl: &CflSection, ndyn: usize) -> Result<(), ConfigError> {
    let t = cfl.vertical_cfl_threshold;
    if !(t.is_finite() && t > 0.0) {
        return Err(invalid(
            "[cfl] vertical_cfl_threshold",
            t,
            "a positive vertical CFL number (ICON: 0.85)",
        ));
    }
    match cfl.max_ndyn_substeps {
        Some(max) if max < ndyn => Err(invalid(
            "[cfl] max_ndyn_substeps",
            max,
            format!(
                "at least [run] ndyn_substeps ({ndyn}); leave it out for ndyn_substeps + \
                 {EXTRA_WATCH_MODE_SUBSTEPS}"
            ),
        )),
        _ => Ok(()),
    }
}

/// A section's integer that is no ICON option, as a [`ConfigError`].
pub(super) fn not_icon(section: &str, (key, value, allowed): (&str, i32, &[i32])) -> ConfigError {
    let allowed: Vec<String> = allowed.iter().map(i32::to_string).collect();
    invalid(
        &format!("[{section}] {key}"),
        value,
        format!("ICON's values are {}", allowed.join(", ")),
    )
}

/// The vertical grid's configuration, checked by building the grid's heights.
pub(super) fn vertical_config(config: &RunConfig) -> Result<VerticalConfig, ConfigError> {
    let mut v = VerticalConfig::new(config.run.levels);
    config
        .vertical
        .apply(&mut v)
        .map_err(|e| not_icon("vertical", e))?;
    VerticalGrid::try_new(v.clone()).map_err(|e| {
        invalid(
            "[vertical]",
            format!("{} levels", v.num_levels),
            e.to_string(),
        )
    })?;
    Ok(v)
}

/// A finite number at least `min` (or above it when `strict`).
pub(super) fn check_number(key: &str, x: f64, min: f64, strict: bool) -> Result<(), ConfigError> {
    let ok = x.is_finite() && if strict { x > min } else { x >= min };
    if ok {
        return Ok(());
    }
    let rel = if strict { ">" } else { "≥" };
    Err(invalid(
        key,
        x,
        format!("must be a finite number {rel} {min}"),
    ))
}

/// The diffusion's configuration: what foehn's diffusion implements.
pub(super) fn diffusion_config(
    config: &RunConfig,
    limited_area: bool,
) -> Result<DiffusionConfig, ConfigError> {
    let s = &config.diffusion;
    let mut d = DiffusionConfig {
        ndyn_substeps: config.run.ndyn_substeps,
        limited_area,
        ..DiffusionConfig::default()
    };
    s.apply(&mut d).map_err(|e| not_icon("diffusion", e))?;
    for (key, x, strict) in [
        ("[diffusion] hdiff_efdt_ratio", d.hdiff_efdt_ratio, false),
        (
            "[diffusion] hdiff_w_efdt_ratio",
            d.hdiff_w_efdt_ratio,
            false,
        ),
        (
            "[diffusion] smagorinski_scaling_factor",
            d.smagorinski_scaling_factor,
            false,
        ),
        (
            "[diffusion] velocity_boundary_diffusion_denominator",
            d.velocity_boundary_diffusion_denominator,
            true,
        ),
        (
            "[diffusion] max_nudging_coefficient",
            d.max_nudging_coefficient,
            false,
        ),
    ] {
        check_number(key, x, 0.0, strict)?;
    }
    let choices: [(&str, i32, &[i32], &str); 3] = [
        (
            "[diffusion] type_vn_diffu",
            d.type_vn_diffu,
            &[1],
            "foehn's diffusion implements 1 (ICON4Py's)",
        ),
        (
            "[diffusion] type_t_diffu",
            d.type_t_diffu,
            &[2],
            "foehn's diffusion implements 2 (ICON4Py's)",
        ),
        (
            "[diffusion] shear_type",
            d.shear_type,
            &[0, 1, 2],
            "0 (none), 1 or 2 (vertical wind shear in the Smagorinsky diffusion)",
        ),
    ];
    for (key, value, allowed, message) in choices {
        if !allowed.contains(&value) {
            return Err(invalid(key, value, message));
        }
    }
    Ok(d)
}

/// The nonhydrostatic solver's configuration, checked by its own `validate`.
pub(super) fn nonhydrostatic_config(
    config: &RunConfig,
) -> Result<NonHydrostaticConfig, ConfigError> {
    let s = &config.nonhydrostatic;
    let mut n = NonHydrostaticConfig {
        ndyn_substeps: config.run.ndyn_substeps,
        ..NonHydrostaticConfig::default()
    };
    s.apply(&mut n).map_err(|e| not_icon("nonhydrostatic", e))?;
    let non_negative = [
        ("rayleigh_coeff", n.rayleigh_coeff),
        ("divdamp_fac", n.divdamp_fac),
        ("divdamp_fac2", n.divdamp_fac2),
        ("divdamp_fac3", n.divdamp_fac3),
        ("divdamp_fac4", n.divdamp_fac4),
        ("max_nudging_coefficient", n.max_nudging_coefficient),
    ];
    for (key, x) in non_negative {
        check_number(&format!("[nonhydrostatic] {key}"), x, 0.0, false)?;
    }
    let finite = [
        ("divdamp_z", n.divdamp_z),
        ("divdamp_z2", n.divdamp_z2),
        ("divdamp_z3", n.divdamp_z3),
        ("divdamp_z4", n.divdamp_z4),
        ("rhotheta_offctr", n.rhotheta_offctr),
        ("veladv_offctr", n.veladv_offctr),
    ];
    for (key, x) in finite {
        check_number(
            &format!("[nonhydrostatic] {key}"),
            x,
            f64::NEG_INFINITY,
            true,
        )?;
    }
    n.validate().map_err(|e| {
        invalid(
            &format!("[nonhydrostatic] {}", e.option),
            &e.value,
            format!("not supported: {}", e.message),
        )
    })?;
    Ok(n)
}

/// The initial state's configuration; the steady state has no perturbation.
pub(super) fn jw_config(config: &RunConfig) -> Result<JwConfig, ConfigError> {
    let mut jw = JwConfig::default();
    config.jw.apply(&mut jw).map_err(|e| not_icon("jw", e))?;
    if config.run.steady {
        jw.baroclinic_amplitude = 0.0;
    }
    jw.validate().map_err(|e| match e {
        crate::initial::InitialError::InvalidOption {
            option,
            value,
            requirement,
        } => invalid(
            &format!("[jw] {option}"),
            value,
            format!("must be {requirement}"),
        ),
        e => invalid("[jw]", "", e.to_string()),
    })?;
    Ok(jw)
}
