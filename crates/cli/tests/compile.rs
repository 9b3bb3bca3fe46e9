//! `foehn compile`: every variant of the chosen programs compiled as written or
//! optimised for a grid (the cold start `foehn run` pays), a second run served from the
//! cache, an unknown schedule a clear error.

use std::process::Command;

fn foehn_compile(cache: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_foehn"))
        .arg("compile")
        .args(args)
        .env("FOEHN_CACHE_DIR", cache)
        .output()
        .unwrap()
}

#[test]
fn optimised_programs_compile_for_a_grid_then_come_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--backend",
        "cpu",
        "--schedule",
        "optimised",
        "--grid",
        "r2b1",
        "--levels",
        "6",
        "--programs",
        "compute_interpolation_and_nonhydro_buoy,divergence",
    ];
    let first = foehn_compile(dir.path(), &args);
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(text.contains("optimised for r2b1 × 6"), "{text}");
    assert!(text.contains("(2 built, 0 from the cache)"), "{text}");
    let again = foehn_compile(dir.path(), &args);
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("(0 built, 2 from the cache)"), "{text}");
    // The programs as written are other artefacts.
    let unfused = foehn_compile(dir.path(), &[&args[..2], &args[6..]].concat());
    let text = String::from_utf8_lossy(&unfused.stdout);
    assert!(unfused.status.success());
    assert!(
        text.contains("(unfused)") && !text.contains(" 0 built"),
        "{text}"
    );
}

#[test]
fn an_unknown_schedule_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = foehn_compile(
        dir.path(),
        &["--schedule", "fused", "--programs", "divergence"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown schedule `fused` (unfused or optimised)"),
        "{err}"
    );
}
