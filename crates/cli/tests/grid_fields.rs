//! `foehn grid fields` and `foehn grid info --levels` through the real binary: ICON4Py's
//! names, dimensions and shapes in NetCDF and `.npz`, 0-based index fields in range,
//! byte-identical rewrites, the topography at the bottom interface, and refusals of
//! bad options with clear messages.

mod support;

use foehn::runtime::field::npy::load_npz;
use foehn::runtime::field::FieldData;
use std::path::Path;
use support::{foehn, Run};

const NLEV: usize = 8;

/// Writes the fields of `grid` with `extra` options to `path`, asserting success.
fn fields(grid: &str, path: &Path, extra: &[&str]) -> Run {
    let levels = NLEV.to_string();
    let mut args = vec!["grid", "fields", grid, "--levels", &levels];
    args.extend_from_slice(extra);
    let p = path.to_str().unwrap();
    args.extend_from_slice(&["-o", p]);
    let r = foehn(&args);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    r
}

/// A clean refusal (status 1 or 2, no panic) whose message holds every word.
fn refused(args: &[&str], words: &[&str]) {
    let r = foehn(args);
    let what = format!("{args:?}\nstderr: {}\nstdout: {}", r.stderr, r.stdout);
    assert!(matches!(r.code, Some(1 | 2)), "status {:?}\n{what}", r.code);
    assert!(!r.stderr.contains("panicked"), "{what}");
    for w in words {
        assert!(r.stderr.contains(w), "`{w}` missing\n{what}");
    }
}

/// Names every test run checks, with ICON4Py's dimensions.
const EXPECTED: &[(&str, &[&str])] = &[
    ("edge_length", &["Edge"]),
    ("cell_area", &["Cell"]),
    ("orientation_of_edges_around_vertex", &["Vertex", "V2E"]),
    (
        "eastward_component_of_edge_normal_on_vertex",
        &["Edge", "E2C2V"],
    ),
    ("mean_cell_area", &[]),
    ("geometrical_factor_for_divergence", &["Cell", "C2E"]),
    (
        "lsq_interpolation_coefficient",
        &["Cell", "LsqUnk", "C2E2C"],
    ),
    ("vct_a", &["KHalf"]),
    ("topography", &["Cell"]),
    ("vertical_coordinates_on_half_levels", &["Cell", "KHalf"]),
    ("height", &["Cell", "K"]),
    (
        "functional_determinant_of_metrics_on_full_levels_on_edges",
        &["Edge", "K"],
    ),
    ("rayleigh_w", &["KHalf"]),
    ("theta_ref_me", &["Edge", "K"]),
    ("zdiff_gradp", &["Edge", "E2C", "K"]),
    ("vertoffset_gradp", &["Edge", "E2C", "K"]),
    ("zd_vertoffset", &["Cell", "C2E2C", "K"]),
    ("flat_idx_max", &["Edge"]),
    ("nflat_gradp", &[]),
    ("mask_prog_halo_c", &["Cell"]),
];

#[test]
fn netcdf_holds_icon4py_names_dims_attributes_and_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.nc"), dir.path().join("b.nc"));
    let r = fields("r2b2", &a, &[]);
    assert!(r.stdout.contains("fields"), "{}", r.stdout);
    fields("r2b2", &b, &[]);
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "two writes differ"
    );
    let file = netcdf::open(&a).unwrap();
    let size = |d: &str| file.dimension(d).map(|d| d.len());
    assert_eq!(size("Cell"), Some(1280));
    assert_eq!(size("Edge"), Some(1920));
    assert_eq!(size("K"), Some(NLEV));
    assert_eq!(size("KHalf"), Some(NLEV + 1));
    for &(name, dims) in EXPECTED {
        let v = file
            .variable(name)
            .unwrap_or_else(|| panic!("{name} missing"));
        let got: Vec<String> = v.dimensions().iter().map(|d| d.name()).collect();
        assert_eq!(got, dims, "{name}");
        for attr in ["long_name", "units"] {
            assert!(v.attribute(attr).is_some(), "{name}: no {attr}");
        }
    }
    // Every variable is described.
    let n_vars = file.variables().count();
    assert!(n_vars >= 130, "{n_vars} variables");
    assert!(file.variables().all(|v| v.attribute("units").is_some()));
    // The three surface weights keep ICON4Py's dimension names in an attribute.
    let q = file
        .variable("weighting_factor_for_quadratic_interpolation_to_cell_surface")
        .unwrap();
    let qd: Vec<String> = q.dimensions().iter().map(|d| d.name()).collect();
    assert_eq!(qd, ["Cell", "K_3"]);
    let attr: String = q
        .attribute("icon4py_dimensions")
        .unwrap()
        .value()
        .unwrap()
        .try_into()
        .unwrap();
    assert_eq!(attr, "Cell K");
    // Index fields are int32, 0-based, in range.
    let off: Vec<i32> = file
        .variable("vertoffset_gradp")
        .unwrap()
        .get_values(..)
        .unwrap();
    for (i, o) in off.iter().enumerate() {
        let k = (i % NLEV) as i32 + o;
        assert!((0..NLEV as i32).contains(&k), "vertoffset_gradp[{i}] = {o}");
    }
    let flat: Vec<i32> = file
        .variable("flat_idx_max")
        .unwrap()
        .get_values(..)
        .unwrap();
    assert!(flat.iter().all(|&k| (0..NLEV as i32).contains(&k)));
    // Masks are bytes 0/1.
    let mask: Vec<i8> = file
        .variable("mask_prog_halo_c")
        .unwrap()
        .get_values(..)
        .unwrap();
    assert!(mask.iter().all(|&m| m == 0 || m == 1));
}

#[test]
fn npz_holds_the_same_fields_and_jw_raises_the_bottom_interface() {
    let dir = tempfile::tempdir().unwrap();
    let (flat, jw) = (dir.path().join("flat.npz"), dir.path().join("jw.npz"));
    fields("r2b1", &flat, &[]);
    fields("r2b1", &jw, &["--topography", "jw"]);
    let f = load_npz(&flat).unwrap();
    let j = load_npz(&jw).unwrap();
    assert_eq!(f.len(), j.len());
    assert!(f.len() >= 130, "{} arrays", f.len());
    let n_cells = 320;
    for &(name, dims) in EXPECTED {
        let a = f.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(a.shape.len(), dims.len(), "{name}");
    }
    assert_eq!(f["height"].shape, [n_cells, NLEV]);
    assert_eq!(f["zd_vertoffset"].shape, [n_cells, 3, NLEV]);
    assert!(matches!(f["zd_vertoffset"].data, FieldData::I32(_)));
    assert!(matches!(f["mask_prog_halo_c"].data, FieldData::Bool(_)));
    assert!(f["nflat_gradp"].shape.is_empty());
    let bottom = |a: &foehn::runtime::field::npy::Array| match &a.data {
        FieldData::F64(d) => d.chunks(NLEV + 1).map(|c| c[NLEV]).collect::<Vec<_>>(),
        _ => panic!("z_ifc is not float64"),
    };
    let z = "vertical_coordinates_on_half_levels";
    assert!(bottom(&f[z]).iter().all(|&h| h == 0.0));
    let jw_bottom = bottom(&j[z]);
    assert!(jw_bottom.iter().any(|&h| h.abs() > 1.0));
    match &j["topography"].data {
        FieldData::F64(t) => assert_eq!(t, &jw_bottom),
        _ => panic!("topography is not float64"),
    }
    // The grid's geometry does not depend on the topography.
    assert_eq!(f["edge_length"], j["edge_length"]);
}

#[test]
fn grid_info_summarises_the_vertical_grid() {
    let r = foehn(&["grid", "info", "r2b1", "--levels", "30"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for w in [
        "30 levels",
        "nflatlev",
        "nflat_gradp",
        "end_index_of_damping_layer",
        "kstart_moist",
        "model top 23500.0 m",
        "lowest layer 50.00 m",
    ] {
        assert!(r.stdout.contains(w), "`{w}` missing\n{}", r.stdout);
    }
    let plain = foehn(&["grid", "info", "r2b1"]);
    assert!(!plain.stdout.contains("nflatlev"));
}

/// `grid fields r2b1 --levels 8 OPTIONS -o OUT`.
fn fields_args<'a>(options: &[&'a str], out: &'a str) -> Vec<&'a str> {
    let mut args = vec!["grid", "fields", "r2b1", "--levels", "8"];
    args.extend_from_slice(options);
    args.extend(["-o", out]);
    args
}

#[test]
fn bad_options_are_refused_with_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.nc");
    let out = out.to_str().unwrap();
    refused(
        &["grid", "fields", "r2b1", "--levels", "0", "-o", out],
        &["--levels 0", "at least 3"],
    );
    refused(
        &fields_args(&["--model-top-height", "-100"], out),
        &["--model-top-height", "-100", "> 0"],
    );
    refused(
        &fields_args(&["--flat-height", "-1"], out),
        &["--flat-height"],
    );
    refused(
        &fields_args(&["--topography", "alps"], out),
        &["unknown topography", "alps", "flat or jw"],
    );
    let missing = dir.path().join("no/such/folder/f.nc");
    refused(
        &fields_args(&[], missing.to_str().unwrap()),
        &["does not exist"],
    );
    let txt = dir.path().join("f.txt");
    refused(&fields_args(&[], txt.to_str().unwrap()), &[".nc", ".npz"]);
    refused(
        &["grid", "info", "r2b1", "--flat-height", "9000"],
        &["--flat-height", "--levels"],
    );
    refused(
        &[
            "grid",
            "fields",
            "torus_100000mx100000m_res10000m",
            "--levels",
            "8",
            "--topography",
            "jw",
            "-o",
            out,
        ],
        &["sphere"],
    );
    assert!(!Path::new(out).exists());
}
