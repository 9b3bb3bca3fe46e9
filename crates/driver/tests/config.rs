//! The run configuration (`foehn_driver::config`): ICON's JW defaults, every refusal
//! with its message, durations, and the TOML round trip of `--print-config`.

use foehn_driver::config::interval::Interval;
use foehn_driver::config::{
    default_dtime, grid_kind_of_name, Backend, ConfigError, RunConfig, RunSetup,
};
use foehn_grid::GridKind;
use foehn_icon::solve_nonhydro::config::{DivergenceDampingOrder, NonHydrostaticConfig};

const R2B4: GridKind = GridKind::Icosahedral {
    root: 2,
    bisections: 4,
};

fn parse(text: &str) -> Result<RunConfig, ConfigError> {
    RunConfig::from_toml(text, "jw.toml")
}

fn setup(text: &str) -> Result<RunSetup, ConfigError> {
    parse(text)?.resolve(&R2B4)
}

/// The message of a refused configuration.
fn refused(text: &str) -> String {
    match setup(text) {
        Ok(s) => panic!("accepted: {text}\n{:?}", s.config),
        Err(e) => e.to_string(),
    }
}

fn assert_has(message: &str, parts: &[&str]) {
    for p in parts {
        assert!(message.contains(p), "`{p}` missing from: {message}");
    }
}

#[test]
fn defaults_are_icon_jw_experiment() {
    let s = RunConfig::default().resolve(&R2B4).unwrap();
    assert_eq!(s.dtime, 300.0);
    assert_eq!(s.config.run.ndyn_substeps, 5);
    assert_eq!(s.steps, 9 * 288);
    assert_eq!(s.config.run.days, Some(9.0));
    assert_eq!(s.vertical.num_levels, 35);
    assert_eq!(s.vertical.model_top_height, 23500.0);
    assert_eq!(s.vertical.flat_height, 16000.0);
    assert_eq!(s.vertical.rayleigh_damping_height, 45000.0);
    assert!(!s.diffusion.apply_to_temperature);
    assert_eq!(s.diffusion.hdiff_efdt_ratio, 10.0);
    assert_eq!(s.diffusion.smagorinski_scaling_factor, 0.025);
    assert_eq!(s.diffusion.ndyn_substeps, 5);
    assert!(!s.diffusion.limited_area);
    assert_eq!(
        s.nonhydrostatic,
        NonHydrostaticConfig {
            ndyn_substeps: 5,
            ..NonHydrostaticConfig::default()
        }
    );
    assert_eq!(s.nonhydrostatic.divdamp_fac, 0.0025);
    assert_eq!(s.jw.baroclinic_amplitude, 1.0);
    assert_eq!(s.jw.u0, 35.0);
    assert_eq!(s.max_ndyn_substeps, 12);
    assert_eq!(s.config.cfl.vertical_cfl_threshold, 0.85);
    assert_eq!(s.output_every, None);
    assert_eq!(s.config.run.backend, Backend::Auto);
    assert!(!s.config.run.diffuse_before_time_loop);
    assert_eq!(s.simulated_seconds(), 9.0 * 86400.0);
    let spec = s.jw_run_spec();
    assert_eq!(spec.vertical, s.vertical);
    assert_eq!(spec.initial, s.jw);
    assert_eq!(spec.nonhydro, s.nonhydrostatic);
    assert_eq!(spec.diffusion, s.diffusion);
    let l = spec.settings;
    assert_eq!(
        (l.dtime, l.ndyn_substeps, l.ndyn_substeps_max),
        (300.0, 5, 12)
    );
    assert_eq!(l.vcfl_threshold, 0.85);
    assert!(l.apply_diffusion && !l.diffuse_before_loop && !l.lprep_adv);
    l.validate().unwrap();
}

#[test]
fn dtime_scales_with_resolution() {
    let ico = |root, bisections| GridKind::Icosahedral { root, bisections };
    assert_eq!(default_dtime(&ico(2, 4)).unwrap(), 300.0);
    assert_eq!(default_dtime(&ico(2, 5)).unwrap(), 150.0);
    assert_eq!(default_dtime(&ico(2, 6)).unwrap(), 75.0);
    assert_eq!(default_dtime(&ico(2, 2)).unwrap(), 1200.0);
    assert_eq!(default_dtime(&ico(4, 3)).unwrap(), 300.0);
    let lam = grid_kind_of_name("r2b5:cap:46,8,800").unwrap().unwrap();
    assert_eq!(default_dtime(&lam).unwrap(), 150.0);
    let s = parse("").unwrap().resolve(&lam).unwrap();
    assert!(s.diffusion.limited_area);
    assert_eq!(s.dtime, 150.0);
    assert_eq!(grid_kind_of_name("R2B6").unwrap(), Some(ico(2, 6)));
    assert_eq!(grid_kind_of_name("some/grid.nc").unwrap(), None);
}

#[test]
fn steady_state_has_no_perturbation() {
    let s = setup("[run]\nsteady = true\n").unwrap();
    assert_eq!(s.jw.baroclinic_amplitude, 0.0);
    let s = setup("[jw]\nbaroclinic_amplitude = 2.5\n").unwrap();
    assert_eq!(s.jw.baroclinic_amplitude, 2.5);
}

#[test]
fn file_values_reach_the_components() {
    let s = setup(
        "[run]\ngrid = \"r2b4\"\nlevels = 60\ndtime = 240.0\nndyn_substeps = 4\nsteps = 10\n\
         output = \"out.nc\"\noutput_interval = \"2 steps\"\nbackend = \"cpu\"\n\
         diffuse_before_time_loop = true\n\
         [cfl]\nvertical_cfl_threshold = 0.9\nmax_ndyn_substeps = 8\n\
         [vertical]\nmodel_top_height = 30000.0\n\
         [diffusion]\nhdiff_efdt_ratio = 24.0\napply_to_temperature = true\n\
         [nonhydrostatic]\ndivdamp_order = 4\ndivdamp_fac = 0.004\n\
         [jw]\nu0 = 30.0\n",
    )
    .unwrap();
    assert_eq!((s.dtime, s.steps, s.output_every), (240.0, 10, Some(2)));
    assert_eq!(s.vertical.num_levels, 60);
    assert_eq!(s.vertical.model_top_height, 30000.0);
    assert_eq!(s.diffusion.ndyn_substeps, 4);
    assert_eq!(s.nonhydrostatic.ndyn_substeps, 4);
    assert_eq!(s.diffusion.hdiff_efdt_ratio, 24.0);
    assert!(s.diffusion.apply_to_temperature);
    assert_eq!(
        s.nonhydrostatic.divdamp_order,
        DivergenceDampingOrder::Fourth
    );
    assert_eq!(s.nonhydrostatic.divdamp_fac, 0.004);
    assert_eq!(s.jw.u0, 30.0);
    assert_eq!(s.max_ndyn_substeps, 8);
    assert_eq!(s.config.cfl.vertical_cfl_threshold, 0.9);
    assert_eq!(s.config.run.backend, Backend::Cpu);
    assert!(s.config.run.diffuse_before_time_loop);
}

#[test]
fn unknown_keys_name_key_file_line_and_valid_keys() {
    let m = parse("[run]\ngrid = \"r2b4\"\ndtme = 300.0\n")
        .unwrap_err()
        .to_string();
    assert_has(
        &m,
        &[
            "jw.toml:3",
            "unknown key `dtme`",
            "[run]",
            "dtime",
            "levels",
        ],
    );
    let m = parse("[run]\nlevels = 35\n\n[diffusion]\nhdiff_efdt = 10.0\n")
        .unwrap_err()
        .to_string();
    assert_has(
        &m,
        &[
            "jw.toml:5",
            "`hdiff_efdt`",
            "[diffusion]",
            "hdiff_efdt_ratio",
        ],
    );
    let m = parse("[rnu]\nlevels = 35\n").unwrap_err();
    match &m {
        ConfigError::UnknownKey {
            line, key, valid, ..
        } => {
            assert_eq!((*line, key.as_str()), (1, "rnu"));
            assert!(valid.contains(&"run".to_string()), "{valid:?}");
        }
        e => panic!("{e:?}"),
    }
    assert_has(&m.to_string(), &["top level", "run, cfl, vertical"]);
}

#[test]
fn wrong_types_and_syntax_name_the_line() {
    let m = parse("[run]\nlevels = \"many\"\n").unwrap_err().to_string();
    assert_has(&m, &["jw.toml:2", "levels = \"many\""]);
    let m = parse("[run]\nbackend = \"gpu\"\n").unwrap_err().to_string();
    assert_has(&m, &["jw.toml:2", "gpu", "cuda"]);
    let m = parse("[run]\nschedule = \"fused\"\n")
        .unwrap_err()
        .to_string();
    assert_has(&m, &["jw.toml:2", "fused", "optimised"]);
    let c = parse("[run]\nschedule = \"unfused\"\n").unwrap();
    assert_eq!(c.run.schedule.to_string(), "unfused");
    let m = parse("[run\nlevels = 3\n").unwrap_err().to_string();
    assert_has(&m, &["jw.toml:1"]);
    let m = parse("[run]\noutput_interval = \"6 hours\"\n")
        .unwrap_err()
        .to_string();
    assert_has(&m, &["jw.toml:2", "6 hours", "not a duration"]);
    let m = parse("[nonhydrostatic]\ndivdamp_order = 3\n")
        .unwrap()
        .resolve(&R2B4)
        .unwrap_err()
        .to_string();
    assert_has(&m, &["[nonhydrostatic] divdamp_order = 3", "2, 4, 24"]);
}

#[test]
fn every_invalid_value_is_refused_with_what_to_do() {
    let cases: &[(&str, &[&str])] = &[
        (
            "[run]\nlevels = 0",
            &["[run] levels (--levels) = 0", "1 to 1000"],
        ),
        ("[run]\nlevels = 1001", &["1001", "1 to 1000"]),
        ("[run]\ngrid = \"\"", &["[run] grid", "name a grid"]),
        ("[run]\ngrid = \"r2x4\"", &["[run] grid", "r2x4"]),
        (
            "[run]\ndtime = -5.0",
            &["[run] dtime (--dtime) = -5", "positive"],
        ),
        ("[run]\ndtime = 0.0", &["dtime", "positive"]),
        ("[run]\nndyn_substeps = 0", &["--substeps", "at least one"]),
        (
            "[run]\ndays = 1.0\nsteps = 3",
            &["--days, --steps", "either"],
        ),
        (
            "[run]\ndays = -1.0",
            &["[run] days (--days) = -1", "positive"],
        ),
        ("[run]\ndays = 0.001", &["0.288 time steps", "--steps"]),
        ("[run]\nsteps = 0", &["[run] steps (--steps) = 0", "1 to"]),
        ("[run]\noutput = \"\"", &["[run] output", "NetCDF"]),
        ("[run]\noutput = \"/\"", &["directory"]),
        (
            "[run]\noutput = \"a.nc\"\noutput_interval = \"7m\"",
            &[
                "output_interval (--output-interval) = 7m",
                "1.4 time steps",
                "multiple of dtime",
            ],
        ),
        (
            "[run]\noutput_variables = [\"ps\", \"pz\"]",
            &[
                "output_variables (--output-vars) = pz",
                "choose from",
                "temp_p",
            ],
        ),
        (
            "[run]\noutput_variables = []",
            &["output_variables", "at least one"],
        ),
        (
            "[run]\noutput_variables = [\"ps\", \"ps\"]",
            &["= ps", "named twice"],
        ),
        (
            "[cfl]\nvertical_cfl_threshold = 0.0",
            &["vertical_cfl_threshold", "positive"],
        ),
        (
            "[cfl]\nmax_ndyn_substeps = 3",
            &["max_ndyn_substeps = 3", "at least [run] ndyn_substeps (5)"],
        ),
        (
            "[vertical]\nmodel_top_height = -1.0",
            &["[vertical]", "model_top_height"],
        ),
        (
            "[vertical]\nhtop_moist_proc = 10.0",
            &["[vertical]", "htop_moist_proc"],
        ),
        (
            "[diffusion]\nhdiff_efdt_ratio = -1.0",
            &["[diffusion] hdiff_efdt_ratio = -1", "≥ 0"],
        ),
        (
            "[diffusion]\nvelocity_boundary_diffusion_denominator = 0.0",
            &["denominator", "> 0"],
        ),
        (
            "[diffusion]\nshear_type = 3",
            &["[diffusion] shear_type = 3"],
        ),
        (
            "[diffusion]\ntype_vn_diffu = 2",
            &["type_vn_diffu = 2", "implements 1"],
        ),
        (
            "[diffusion]\ntype_t_diffu = 1",
            &["type_t_diffu = 1", "implements 2"],
        ),
        (
            "[nonhydrostatic]\nigradp_method = 2",
            &[
                "[nonhydrostatic] igradp_method = 2",
                "not supported",
                "only 3",
            ],
        ),
        (
            "[nonhydrostatic]\nitime_scheme = 7",
            &["itime_scheme = 7", "4, 5, 6"],
        ),
        (
            "[nonhydrostatic]\ndivdamp_fac = -0.1",
            &["divdamp_fac = -0.1", "≥ 0"],
        ),
        (
            "[nonhydrostatic]\nveladv_offctr = nan",
            &["veladv_offctr = NaN", "finite"],
        ),
        (
            "[nonhydrostatic]\nldeepatmo = true",
            &["unknown key `ldeepatmo`", "deepatmos_mode"],
        ),
        (
            "[nonhydrostatic]\ndeepatmos_mode = true",
            &["ldeepatmo", "not supported"],
        ),
        ("[jw]\nu0 = -35.0", &["[jw] u0 = -35", "> 0"]),
        ("[jw]\neta_0 = 1.5", &["[jw] eta_0 = 1.5"]),
    ];
    for (text, parts) in cases {
        let m = match parse(text) {
            Ok(c) => match c.resolve(&R2B4) {
                Ok(_) => panic!("accepted: {text}"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        };
        assert_has(&m, parts);
    }
    let torus = grid_kind_of_name("torus_100000mx100000m_res1000m").unwrap_err();
    assert_has(&torus.to_string(), &["sphere"]);
    assert!(refused("[run]\nsteps = 2000000000").contains("1 to 1000000000"));
}

#[test]
fn durations_parse_and_print_back() {
    let cases = [
        ("9d", Interval::Seconds(9.0 * 86400.0), "9d"),
        ("12h", Interval::Seconds(43200.0), "12h"),
        ("30m", Interval::Seconds(1800.0), "30m"),
        ("300s", Interval::Seconds(300.0), "5m"),
        ("90s", Interval::Seconds(90.0), "90s"),
        ("1.5d", Interval::Seconds(129600.0), "36h"),
        (" 0.5s ", Interval::Seconds(0.5), "0.5s"),
        ("10 steps", Interval::Steps(10), "10 steps"),
        ("1 step", Interval::Steps(1), "1 step"),
        ("4steps", Interval::Steps(4), "4 steps"),
    ];
    for (text, value, printed) in cases {
        let v: Interval = text.parse().unwrap();
        assert_eq!(v, value, "{text}");
        assert_eq!(v.to_string(), printed);
        assert_eq!(printed.parse::<Interval>().unwrap(), v);
    }
    for bad in [
        "",
        "6",
        "6 hours",
        "-1h",
        "0s",
        "0 steps",
        "1.5 steps",
        "xd",
        "infd",
    ] {
        let e = bad.parse::<Interval>().unwrap_err();
        assert!(
            e.contains("not a duration") && e.contains("\"6h\""),
            "{bad}: {e}"
        );
    }
    assert_eq!(Interval::Seconds(21600.0).steps(300.0, "x"), Ok(72));
    assert_eq!(Interval::Seconds(129600.0).steps(300.0, "x"), Ok(432));
    assert_eq!(Interval::Steps(7).steps(300.0, "x"), Ok(7));
    assert!(Interval::Seconds(100.0).steps(300.0, "x").is_err());
}

#[test]
fn printed_configuration_reads_back_to_the_same() {
    for text in [
        "",
        "[run]\ngrid = \"r2b5\"\nsteady = true\nsteps = 12\noutput = \"jw.nc\"\n\
         output_interval = \"1d\"\n[nonhydrostatic]\ndivdamp_order = 4\n",
        "[run]\ndays = 1.5\ndtime = 450.0\n[cfl]\nmax_ndyn_substeps = 20\n",
    ] {
        let kind = grid_kind_of_name(&parse(text).unwrap().run.grid)
            .unwrap()
            .unwrap();
        let s = parse(text).unwrap().resolve(&kind).unwrap();
        let printed = s.config.to_toml();
        assert!(printed.starts_with("# foehn run jw"));
        let back = RunConfig::from_toml(&printed, "printed").unwrap();
        assert_eq!(back, s.config, "{printed}");
        assert_eq!(back.resolve(&kind).unwrap(), s);
        // Every option is printed.
        for key in [
            "dtime",
            "days",
            "divdamp_fac4",
            "sleve_decay_exponent",
            "max_ndyn_substeps",
        ] {
            assert!(
                printed.contains(key) || s.config.run.days.is_none(),
                "{key}"
            );
        }
    }
}

#[test]
fn flags_override_the_file() {
    let mut c = parse("[run]\ndays = 2.0\nlevels = 40\n").unwrap();
    c.set_steps(3);
    c.run.levels = 20;
    let s = c.resolve(&R2B4).unwrap();
    assert_eq!(
        (s.steps, s.config.run.days, s.vertical.num_levels),
        (3, None, 20)
    );
    let mut c = parse("[run]\nsteps = 2\n").unwrap();
    c.set_days(0.5);
    assert_eq!(c.resolve(&R2B4).unwrap().steps, 144);
}

#[test]
fn integers_are_accepted_for_real_numbers() {
    let s = setup("[run]\ndays = 2\ndtime = 600\n[vertical]\nmodel_top_height = 30000\n").unwrap();
    assert_eq!((s.steps, s.dtime), (288, 600.0));
    assert_eq!(s.vertical.model_top_height, 30000.0);
}

#[test]
fn missing_file_is_named() {
    let e = RunConfig::from_file(std::path::Path::new("/nonexistent/jw.toml")).unwrap_err();
    assert_has(&e.to_string(), &["/nonexistent/jw.toml", "cannot read"]);
}
