//! `foehn run jw --restart` through the real binary: a run of 4 steps on R2B2 and a run
//! stopped after 2 steps and restarted from its checkpoint end in byte-identical
//! checkpoint files and write the same NetCDF output after the restart; a restart on
//! other levels, past its end, or a checkpoint path that is someone else's file are
//! refused with clear errors. `foehn checkpoint diff` finds the two end checkpoints
//! identical and names the fields in which the half-way one differs; `foehn checkpoint
//! info` lists a checkpoint's run, clock and fields.

mod support;

use std::path::Path;
use support::{foehn, Run};

/// `foehn run jw` on R2B2 × 10 levels on the CPU for `steps` steps, output every step
/// into `dir`, with `extra` flags.
fn jw(dir: &Path, steps: &str, extra: &[&str]) -> Run {
    let out = dir.join("jw.nc");
    let mut args = vec![
        "run",
        "jw",
        "--grid",
        "r2b2",
        "--levels",
        "10",
        "--backend",
        "cpu",
        "--steps",
        steps,
        "--output",
        out.to_str().unwrap(),
        "--output-interval",
        "1 steps",
    ];
    args.extend_from_slice(extra);
    foehn(&args)
}

fn ok(r: &Run) {
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
}

fn refused(r: &Run, parts: &[&str]) {
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    for p in parts {
        assert!(r.stderr.contains(p), "`{p}` missing from: {}", r.stderr);
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_restarted_run_ends_bit_for_bit_where_the_uninterrupted_run_ends() {
    let (straight, stopped, resumed) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let full = straight.path().join("end.ckpt");
    ok(&jw(straight.path(), "4", &["--checkpoint", s(&full)]));

    let half = stopped.path().join("half.ckpt");
    let r = jw(
        stopped.path(),
        "2",
        &["--checkpoint", s(&half), "--checkpoint-interval", "1 steps"],
    );
    ok(&r);
    assert!(r.stderr.contains("wrote checkpoint"), "{}", r.stderr);

    let end = resumed.path().join("end.ckpt");
    let r = jw(
        resumed.path(),
        "4",
        &["--restart", s(&half), "--checkpoint", s(&end)],
    );
    ok(&r);
    assert!(r.stdout.contains("4 steps"), "{}", r.stdout);
    let (want, got) = (std::fs::read(&full).unwrap(), std::fs::read(&end).unwrap());
    assert!(want.len() > 100_000, "a checkpoint of R2B2 × 10 levels");
    assert!(want == got, "the restarted run's checkpoint differs");

    // `foehn checkpoint diff` says so, and names what differs from the half-way one.
    let r = foehn(&["checkpoint", "diff", s(&full), s(&end)]);
    ok(&r);
    assert!(r.stdout.contains("identical, bit for bit"), "{}", r.stdout);
    let r = foehn(&["checkpoint", "diff", s(&half), s(&end)]);
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    for part in [
        "clock:",
        "field `current_vn`:",
        "elements differ",
        "difference(s)",
    ] {
        assert!(
            r.stdout.contains(part),
            "`{part}` missing from: {}",
            r.stdout
        );
    }
    let r = foehn(&["checkpoint", "info", s(&end)]);
    ok(&r);
    for part in [
        "grid: r2b2",
        "levels: 10",
        "4 steps done",
        "current_theta_v",
    ] {
        assert!(
            r.stdout.contains(part),
            "`{part}` missing from: {}",
            r.stdout
        );
    }
    // Something that is not a checkpoint: an error naming the file.
    let stray = stopped.path().join("jw_series.csv");
    refused(
        &foehn(&["checkpoint", "diff", s(&stray), s(&end)]),
        &["jw_series.csv"],
    );

    if cfg!(feature = "netcdf") {
        // The restart continues the output: the files after it, and only those.
        let mut names: Vec<String> = std::fs::read_dir(resumed.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with("s.nc"))
            .collect();
        names.sort();
        assert_eq!(names, ["jw_0000d01h00m00s.nc", "jw_0000d01h20m00s.nc"]);
        for n in names {
            let a = std::fs::read(straight.path().join(&n)).unwrap();
            let b = std::fs::read(resumed.path().join(&n)).unwrap();
            assert!(a == b, "{n} differs after the restart");
        }
    }

    // On other levels, or past the run's end: refused, naming the file and why.
    let other = tempfile::tempdir().unwrap();
    refused(
        &jw(other.path(), "1", &["--restart", s(&half)]),
        &["step 2"],
    );
    let r = foehn(&[
        "run",
        "jw",
        "--grid",
        "r2b2",
        "--levels",
        "12",
        "--backend",
        "cpu",
        "--steps",
        "4",
        "--restart",
        s(&half),
    ]);
    refused(&r, &[s(&half), "× 10 levels", "× 12 levels"]);
}

#[test]
fn a_checkpoint_never_replaces_a_file_that_is_not_one() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "keep me").unwrap();
    let r = jw(dir.path(), "1", &["--checkpoint", s(&notes)]);
    refused(&r, &["notes.txt", "not a foehn checkpoint"]);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    let r = jw(dir.path(), "1", &["--restart", s(&notes)]);
    refused(&r, &["notes.txt", "not a foehn checkpoint"]);
}
