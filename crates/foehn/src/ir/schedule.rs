//! A program's schedule: which stencils each kernel (one GPU kernel launch, one C loop
//! nest) computes, in order, and how the kernel is launched. The unfused schedule has a
//! kernel per stencil; the fusion pass (`opt::fuse`) groups stencils whose dependencies
//! are all pointwise into one kernel, and the tuner chooses launch parameters.

use super::Program;

/// One kernel: the stencils it computes at each of its points, in program order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelPlan {
    /// Indices into [`Program::stencils`], ascending.
    pub stencils: Vec<usize>,
    /// Levels one GPU thread walks (k-blocking); `None`: the target's default.
    pub k_block: Option<usize>,
    /// Threads per block along the horizontal; `None`: the backend's default.
    pub block: Option<u32>,
    /// Iterations of the k-block loop the compiler unrolls (register pressure against
    /// memory-level parallelism); `None`: 1 (not unrolled).
    pub unroll: Option<u32>,
    /// GPU blocks in k-major order (the level blocks of a horizontal block run one
    /// after another, keeping its 2-D fields in L2); `None`: the options' default.
    pub k_major: Option<bool>,
    /// Level-invariant loads (neighbour indices, fields without levels) emitted once
    /// before the k-block loop of a CUDA kernel; `None`: the options' default.
    pub hoist: Option<bool>,
}

impl KernelPlan {
    /// A kernel computing one stencil with default launch parameters.
    pub fn single(stencil: usize) -> KernelPlan {
        KernelPlan {
            stencils: vec![stencil],
            k_block: None,
            block: None,
            unroll: None,
            k_major: None,
            hoist: None,
        }
    }

    /// Whether the kernel computes several stencils (needs per-stencil domain guards).
    pub fn is_fused(&self) -> bool {
        self.stencils.len() > 1
    }
}

/// The kernels of a program, in launch order; every stencil appears in exactly one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Schedule {
    /// The kernels, in launch order.
    pub kernels: Vec<KernelPlan>,
}

impl Schedule {
    /// One kernel per stencil, in program order (the program as written).
    pub fn unfused(p: &Program) -> Schedule {
        Schedule {
            kernels: (0..p.stencils.len()).map(KernelPlan::single).collect(),
        }
    }

    /// Checks that the schedule covers every stencil of `p` exactly once, in program
    /// order; the message names what is wrong.
    pub fn validate(&self, p: &Program) -> Result<(), String> {
        let order: Vec<usize> = self
            .kernels
            .iter()
            .flat_map(|k| k.stencils.iter().copied())
            .collect();
        if order != (0..p.stencils.len()).collect::<Vec<_>>() {
            return Err(format!(
                "schedule of `{}` covers stencils {order:?}, expected each of 0..{} once, in order",
                p.name,
                p.stencils.len()
            ));
        }
        if let Some(k) = self.kernels.iter().find(|k| k.k_block == Some(0)) {
            return Err(format!("kernel {:?} has a k-block of 0", k.stencils));
        }
        if let Some(k) = self.kernels.iter().find(|k| k.unroll == Some(0)) {
            return Err(format!("kernel {:?} has an unroll factor of 0", k.stencils));
        }
        Ok(())
    }

    /// A one-line description per kernel: its stencils' names.
    pub fn describe(&self, p: &Program) -> Vec<String> {
        self.kernels
            .iter()
            .map(|k| p.kernel_name(&k.stencils))
            .collect()
    }
}

impl Program {
    /// The name of a kernel computing `stencils`: their names joined by ` + `.
    pub fn kernel_name(&self, stencils: &[usize]) -> String {
        let names: Vec<&str> = stencils
            .iter()
            .map(|&i| self.stencils[i].name.as_str())
            .collect();
        names.join(" + ")
    }
}
