//! `foehn explain`: the optimised schedule's code choices are listed, among them the
//! upwind `where`s computed once at the selected neighbour slot (ADR 0023), and
//! `--without slotselect` takes that choice away; an unknown pass is refused before
//! anything is printed. It also says whether the engines compute the program bit for
//! bit alike (ADR 0035).

mod support;
use support::foehn;

fn explain(extra: &[&str]) -> String {
    let mut args = vec![
        "explain",
        "compute_rho_theta_pgrad_and_update_vn",
        "--variant",
        "is_iau_active=false",
        "--variant",
        "limited_area=false",
        "--grid",
        "r2b1",
        "--levels",
        "6",
    ];
    args.extend_from_slice(extra);
    let run = foehn(&args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.stdout
}

#[test]
fn the_upwind_choice_of_rho_and_theta_is_reported_as_slot_selected() {
    let text = explain(&[]);
    assert!(
        text.contains("2 `where`(s) choosing one expression at two neighbour slots"),
        "{text}"
    );
    let without = explain(&["--without", "slotselect"]);
    assert!(!without.contains("neighbour slots (upwind)"), "{without}");
}

/// `foehn explain` of a small program on a small grid with `passes` (`--with`/`--without`).
fn explain_with(flag: &str, passes: &str) -> support::Run {
    foehn(&[
        "explain",
        "compute_hydrostatic_correction_term",
        "--grid",
        "r2b1",
        "--levels",
        "6",
        flag,
        passes,
    ])
}

#[test]
fn an_unknown_pass_is_refused_before_anything_is_printed() {
    for flag in ["--with", "--without"] {
        let run = explain_with(flag, "bogus");
        assert_ne!(run.code, Some(0), "{flag}");
        assert!(run.stderr.contains("`bogus`"), "{flag}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{flag}: {}", run.stdout);
    }
    // The opt-in passes are known.
    let run = explain_with("--with", "selecthoistindices");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = explain_with("--without", "selecthoist,lockstep,column,windows");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

/// It says whether the engines compute the program bit for bit alike (ADR 0035): also
/// with `exp` and `log`, which are foehn's own.
#[test]
fn it_says_the_engines_compute_a_program_bit_for_bit_alike() {
    for program in [
        "compute_rho_theta_pgrad_and_update_vn",
        "compute_exner_from_rhotheta",
    ] {
        let run = foehn(&["explain", program, "--grid", "r2b1", "--levels", "6"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(
            run.stdout
                .contains("engines: bit for bit alike (interpreter, CPU, CUDA"),
            "{program}: {}",
            run.stdout
        );
    }
}
