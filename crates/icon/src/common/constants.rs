//! Physical and numerical constants of the dycore, under ICON's names
//! (`mo_physical_constants`, `mo_math_constants`; ICON4Py `model/common/constants.py`).

/// Gas constant of dry air, J/(kg K) (ICON `rd`).
pub const RD: f64 = 287.04;
/// Specific heat of dry air at constant pressure, J/(kg K) (ICON `cpd`).
pub const CPD: f64 = 1004.64;
/// Specific heat of dry air at constant volume, J/(kg K) (ICON `cvd = cpd − rd`).
pub const CVD: f64 = CPD - RD;
/// `rd/cvd` (ICON `rd_o_cvd`; the factor of the Exner-pressure update of the diffusion).
pub const RD_O_CVD: f64 = RD / CVD;
/// Gravitational acceleration, m/s² (ICON `grav`).
pub const GRAV: f64 = 9.80665;
/// Reference pressure of the Exner function, Pa (ICON `p0ref`).
pub const P0REF: f64 = 100_000.0;
/// Machine epsilon of double precision (ICON `dbl_eps`); also ICON4Py's
/// `smallest_vpfloat` for double-precision `vpfloat`.
pub const DBL_EPS: f64 = f64::EPSILON;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants_are_icons() {
        assert_eq!(CVD, 1004.64 - 287.04);
        assert_eq!(RD_O_CVD, 287.04 / (1004.64 - 287.04));
    }
}
