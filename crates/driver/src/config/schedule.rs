//! `[run] schedule`: how the dycore's programs are compiled (`--schedule`).

use foehn::runtime::cuda::CudaBackend;
use foehn_icon::common::runner::Schedule;
use serde::{Deserialize, Serialize};

/// How the run compiles the components' programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgramSchedule {
    /// foehn's optimiser: every solve_nonhydro and velocity-advection call optimised on
    /// its own, the diffusion step linked into one program and optimised.
    #[default]
    Optimised,
    /// As [`ProgramSchedule::Optimised`], and on the GPU every program variant's launch
    /// parameters and code options tuned on the device before its first call
    /// (`foehn::runtime::tune`; measured once per device, grid and program, then reused
    /// from the cache). On the CPU it runs the optimised programs.
    Tuned,
    /// Every program as written, one loop nest (GPU kernel) per stencil: the programs
    /// as ICON4Py writes them, for comparison.
    Unfused,
}

impl ProgramSchedule {
    /// The components' schedule.
    pub fn components(self) -> Schedule {
        match self {
            ProgramSchedule::Optimised | ProgramSchedule::Tuned => Schedule::Optimised,
            ProgramSchedule::Unfused => Schedule::Unfused,
        }
    }

    /// Whether the GPU tunes the programs before their first call.
    pub fn tunes(self) -> bool {
        self == ProgramSchedule::Tuned
    }

    /// Readies `cuda` (the run's device; none: the CPU) for the schedule: under
    /// [`ProgramSchedule::Tuned`] the programs compiled on it are tuned first, on the
    /// catalog's inputs; on the CPU the optimised programs run, and a line says so.
    pub fn prepare(self, cuda: Option<&CudaBackend>) {
        match cuda {
            Some(c) if self.tunes() => c.tune_programs(foehn_icon::catalog::tuning_inputs),
            None if self.tunes() => eprintln!(
                "schedule tuned: tuning is for the GPU; the CPU runs the optimised programs"
            ),
            _ => {}
        }
    }
}

impl std::fmt::Display for ProgramSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProgramSchedule::Optimised => "optimised",
            ProgramSchedule::Tuned => "tuned",
            ProgramSchedule::Unfused => "unfused",
        })
    }
}

impl std::str::FromStr for ProgramSchedule {
    type Err = String;
    fn from_str(s: &str) -> Result<ProgramSchedule, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "optimised" | "optimized" => Ok(ProgramSchedule::Optimised),
            "unfused" => Ok(ProgramSchedule::Unfused),
            "tuned" => Ok(ProgramSchedule::Tuned),
            _ => Err(format!(
                "unknown schedule `{s}` (optimised, tuned or unfused)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for s in [
            ProgramSchedule::Optimised,
            ProgramSchedule::Tuned,
            ProgramSchedule::Unfused,
        ] {
            assert_eq!(s.to_string().parse::<ProgramSchedule>(), Ok(s));
        }
        assert!(ProgramSchedule::Tuned.tunes() && !ProgramSchedule::Optimised.tunes());
        assert_eq!(" Optimized".parse(), Ok(ProgramSchedule::Optimised));
        let e = "fused".parse::<ProgramSchedule>().unwrap_err();
        assert!(e.contains("optimised, tuned or unfused"), "{e}");
        assert_eq!(ProgramSchedule::default(), ProgramSchedule::Optimised);
        assert_eq!(ProgramSchedule::Unfused.components(), Schedule::Unfused);
    }
}
