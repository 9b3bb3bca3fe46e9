//! Whether a run must have a GPU: `FOEHN_REQUIRE_GPU=1` turns "no CUDA device" from a
//! reason to skip into a failure, so GPU tests cannot pass silently on a machine where
//! a GPU is expected (the lent GPU machine's scripts set it).

/// The environment variable that makes a missing GPU an error.
pub const REQUIRE_GPU_VAR: &str = "FOEHN_REQUIRE_GPU";

/// Whether `FOEHN_REQUIRE_GPU` is set to a value other than empty, `0` or `false`.
pub fn gpu_required() -> bool {
    requires(std::env::var(REQUIRE_GPU_VAR).ok().as_deref())
}

fn requires(value: Option<&str>) -> bool {
    value.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// What a test does when `what` needs a GPU and none opened (`reason`): with
/// `FOEHN_REQUIRE_GPU` set it panics, naming the variable; otherwise it prints that
/// `what` is skipped and why, and the caller returns.
pub fn skip_without_gpu(what: &str, reason: &dyn std::fmt::Display) {
    if gpu_required() {
        panic!("{what}: {REQUIRE_GPU_VAR} is set but no GPU could be used: {reason}");
    }
    eprintln!("skipping {what}: {reason}");
}

#[cfg(test)]
mod tests {
    use super::requires;

    #[test]
    fn set_values_require_a_gpu_and_empty_or_zero_do_not() {
        assert!(requires(Some("1")) && requires(Some("yes")));
        assert!(!requires(None) && !requires(Some("")) && !requires(Some("0")));
        assert!(!requires(Some("false")));
    }
}
