//! `foehn grid fields`: every static field of ICON's dycore (geometry, interpolation
//! coefficients, vertical grid, SLEVE heights, metric fields, reference atmosphere) for
//! a grid, a vertical grid and a topography, written under ICON4Py's names to NetCDF or
//! `.npz`; and the vertical-grid summary of `foehn grid info --levels N`.

#[cfg(feature = "netcdf")]
use crate::fields_stream;
#[cfg(feature = "netcdf")]
use crate::fields_write::Global;
use crate::fields_write::{self, Format};
use crate::grid_load;
use anyhow::{bail, Context, Result};
use clap::Args;
use foehn_grid::{Connectivity, Grid, Location};
use foehn_icon::fields::named::{StaticFields, StaticFieldsError, VerticalSummary};
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGridError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The vertical grid and the topography (ICON's `sleve_nml`/`nonhydrostatic_nml`
/// options; every option left out takes ICON's default).
#[derive(Args, Debug, Clone, Default)]
pub struct VerticalOptions {
    /// Surface: `flat` (zero) or `jw` (Jablonowski–Williamson, u0 = 35 m/s,
    /// eta_0 = 0.252; global grids only).
    #[arg(long, value_name = "NAME", value_parser = parse_topography)]
    pub topography: Option<Topography>,
    /// Model top height, m (ICON `top_height`; default 23500).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub model_top_height: Option<f64>,
    /// Thickness of the lowest layer, m (`min_lay_thckn`; default 50; at most 0.01
    /// gives uniform layers).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub lowest_layer_thickness: Option<f64>,
    /// Maximal layer thickness below --top-height-limit, m (`max_lay_thckn`; default
    /// 25000).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub maximal_layer_thickness: Option<f64>,
    /// Height below which layers are at most --maximal-layer-thickness thick, m
    /// (`htop_thcknlimit`; default 15000).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub top_height_limit: Option<f64>,
    /// Stretching exponent of the level distribution (`stretch_fac`; default 1).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub stretch_factor: Option<f64>,
    /// Height above which coordinate surfaces are flat, m (`flat_height`; default
    /// 16000).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub flat_height: Option<f64>,
    /// Height where Rayleigh damping of w starts, m (`damp_height`; default 45000).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub rayleigh_damping_height: Option<f64>,
    /// Height above which moist physics is off, m (`htop_moist_proc`; default 22500).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub htop_moist_proc: Option<f64>,
    /// SLEVE decay scale of the large-scale topography, m (`decay_scale_1`; default
    /// 4000).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub sleve_decay_scale_1: Option<f64>,
    /// SLEVE decay scale of the small-scale topography, m (`decay_scale_2`; default
    /// 2500).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub sleve_decay_scale_2: Option<f64>,
    /// Exponent of the SLEVE decay function (`decay_exp`; default 1.2).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub sleve_decay_exponent: Option<f64>,
}

fn parse_topography(s: &str) -> Result<Topography, String> {
    s.parse::<Topography>().map_err(|e| e.to_string())
}

impl VerticalOptions {
    /// The options given, as `--flag` names.
    fn given(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.topography.is_some() {
            out.push("--topography");
        }
        for (flag, v) in self.values() {
            if v.is_some() {
                out.push(flag);
            }
        }
        out
    }

    fn values(&self) -> [(&'static str, Option<f64>); 11] {
        [
            ("--model-top-height", self.model_top_height),
            ("--lowest-layer-thickness", self.lowest_layer_thickness),
            ("--maximal-layer-thickness", self.maximal_layer_thickness),
            ("--top-height-limit", self.top_height_limit),
            ("--stretch-factor", self.stretch_factor),
            ("--flat-height", self.flat_height),
            ("--rayleigh-damping-height", self.rayleigh_damping_height),
            ("--htop-moist-proc", self.htop_moist_proc),
            ("--sleve-decay-scale-1", self.sleve_decay_scale_1),
            ("--sleve-decay-scale-2", self.sleve_decay_scale_2),
            ("--sleve-decay-exponent", self.sleve_decay_exponent),
        ]
    }

    /// ICON's configuration of `levels` levels with these options.
    pub fn config(&self, levels: usize) -> VerticalConfig {
        let mut c = VerticalConfig::new(levels);
        let set = |x: &mut f64, v: Option<f64>| {
            if let Some(v) = v {
                *x = v;
            }
        };
        set(&mut c.model_top_height, self.model_top_height);
        set(&mut c.lowest_layer_thickness, self.lowest_layer_thickness);
        set(&mut c.maximal_layer_thickness, self.maximal_layer_thickness);
        set(
            &mut c.top_height_limit_for_maximal_layer_thickness,
            self.top_height_limit,
        );
        set(&mut c.stretch_factor, self.stretch_factor);
        set(&mut c.flat_height, self.flat_height);
        set(&mut c.rayleigh_damping_height, self.rayleigh_damping_height);
        set(&mut c.htop_moist_proc, self.htop_moist_proc);
        set(&mut c.sleve_decay_scale_1, self.sleve_decay_scale_1);
        set(&mut c.sleve_decay_scale_2, self.sleve_decay_scale_2);
        set(&mut c.sleve_decay_exponent, self.sleve_decay_exponent);
        c
    }

    fn topography(&self) -> Topography {
        self.topography.unwrap_or_default()
    }
}

/// The command-line flag of a [`VerticalConfig`] field.
fn flag_of(option: &str) -> String {
    match option {
        "top_height_limit_for_maximal_layer_thickness" => "--top-height-limit".into(),
        "num_levels" => "--levels".into(),
        o => format!("--{}", o.replace('_', "-")),
    }
}

/// An error of the fields with the option to change named.
fn explain(e: StaticFieldsError) -> anyhow::Error {
    match &e {
        StaticFieldsError::Vertical(VerticalGridError::InvalidOption { option, .. }) => {
            anyhow::anyhow!("{}: {e}", flag_of(option))
        }
        StaticFieldsError::Vertical(VerticalGridError::NoLevels) => {
            anyhow::anyhow!("--levels 0: {e}")
        }
        StaticFieldsError::Vertical(VerticalGridError::NoMoistLevel { .. }) => {
            anyhow::anyhow!("--htop-moist-proc: {e}")
        }
        StaticFieldsError::Heights(_) => {
            anyhow::anyhow!("{e} (change --model-top-height, --flat-height or the SLEVE options)")
        }
        _ => anyhow::Error::new(e),
    }
}

/// `foehn grid fields`: write every static field of the dycore.
#[derive(Args, Debug)]
pub struct FieldsArgs {
    /// A grid name (`r2b4`, `torus_…`, `r2b4:cap:…`; see `grid generate`) or an ICON
    /// grid file.
    pub grid: String,
    /// Number of full levels (at least 3).
    #[arg(long, value_name = "N")]
    pub levels: usize,
    /// Vertical grid and topography.
    #[command(flatten)]
    pub vertical: VerticalOptions,
    /// Output file: `FILE.nc` (NetCDF, CF-style attributes) or `FILE.npz` (NumPy).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// Runs `foehn grid fields`.
pub fn run(a: FieldsArgs) -> Result<()> {
    let format = Format::of(&a.output)?;
    if format == Format::NetCdf && !cfg!(feature = "netcdf") {
        bail!(
            "cannot write {}: this foehn was built without NetCDF support (feature `netcdf`); \
             write FILE.npz instead",
            a.output.display()
        );
    }
    check_output(&a.output)?;
    if a.levels < 3 {
        bail!(
            "--levels {}: the metric fields need at least 3 levels (surface extrapolation)",
            a.levels
        );
    }
    let t0 = Instant::now();
    let grid = grid_load::load(&a.grid)?;
    let loaded = t0.elapsed();
    let topography = a.vertical.topography();
    let config = a.vertical.config(a.levels);
    let dims = dimensions(&grid, a.levels);
    let context = || format!("computing the fields of {}", grid.name);
    let count = match format {
        Format::NetCdf => write_netcdf(&grid, config, &topography, &a.output, &dims)?,
        Format::Npz => {
            check_npz_memory(&grid, a.levels, &a.output)?;
            let fields = StaticFields::compute(&grid, config, &topography)
                .map_err(explain)
                .with_context(context)?;
            let named = fields.named(&grid);
            fields_write::write_npz(&a.output, &named)?;
            named.len()
        }
    };
    println!(
        "{}: {} fields ({} levels, topography {}) written to {} ({}); grid {:.2} s, \
         fields and writing {:.2} s",
        grid.name,
        count,
        a.levels,
        topography_name(&topography),
        a.output.display(),
        match format {
            Format::NetCdf => "NetCDF",
            Format::Npz => "npz",
        },
        loaded.as_secs_f64(),
        (t0.elapsed() - loaded).as_secs_f64()
    );
    Ok(())
}

/// Computes every field and writes it to NetCDF as it comes (the metric fields are not
/// all held at once: R2B7 × 80 levels fits in memory); the globals' `nflat_gradp` comes
/// from the vertical summary, computed first.
#[cfg(feature = "netcdf")]
fn write_netcdf(
    grid: &Grid,
    config: VerticalConfig,
    topography: &Topography,
    path: &Path,
    dims: &[(&str, usize)],
) -> Result<usize> {
    let summary = VerticalSummary::compute(grid, config.clone(), topography)
        .map_err(explain)
        .with_context(|| format!("computing the fields of {}", grid.name))?;
    let globals = globals(grid, &summary, topography);
    let out = fields_stream::NetcdfOutput {
        path,
        dims,
        globals: &globals,
        nflat_gradp: summary.nflat_gradp,
    };
    fields_stream::write_netcdf(grid, config, topography, &out).map_err(|e| match e
        .downcast::<StaticFieldsError>()
    {
        Ok(e) => explain(e).context(format!("computing the fields of {}", grid.name)),
        Err(e) => e,
    })
}

#[cfg(not(feature = "netcdf"))]
fn write_netcdf(
    _: &Grid,
    _: VerticalConfig,
    _: &Topography,
    path: &Path,
    _: &[(&str, usize)],
) -> Result<usize> {
    bail!(
        "cannot write {}: this foehn was built without NetCDF support (feature `netcdf`); \
         write FILE.npz instead",
        path.display()
    )
}

/// Refuses an output path that cannot be written before the fields are computed: a
/// folder, or one in a folder that does not exist.
fn check_output(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("output {}: is a folder; give a file name", path.display());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!(
            "output {}: the folder {} does not exist; create it first",
            path.display(),
            parent.display()
        );
    }
    Ok(())
}

fn topography_name(t: &Topography) -> &'static str {
    match t {
        Topography::Flat => "flat",
        Topography::JablonowskiWilliamson(_) => "jw",
    }
}

/// The file's dimensions in a fixed order: locations, levels, then neighbour indices.
fn dimensions(grid: &Grid, levels: usize) -> Vec<(&'static str, usize)> {
    let mut dims = vec![
        ("Cell", grid.size(Location::Cell)),
        ("Edge", grid.size(Location::Edge)),
        ("Vertex", grid.size(Location::Vertex)),
        ("K", levels),
        ("KHalf", levels + 1),
    ];
    for c in [
        Connectivity::E2C,
        Connectivity::E2V,
        Connectivity::C2E,
        Connectivity::C2E2C,
        Connectivity::C2E2CO,
        Connectivity::V2E,
        Connectivity::V2C,
        Connectivity::E2C2V,
        Connectivity::E2C2E,
        Connectivity::E2C2EO,
        Connectivity::C2E2C2E,
    ] {
        dims.push((c.name(), c.width()));
    }
    dims.push(("LsqUnk", 2));
    dims
}

/// Global attributes: conventions, provenance (no date, no path), the grid and the
/// vertical configuration.
#[cfg(feature = "netcdf")]
fn globals(
    grid: &Grid,
    summary: &VerticalSummary,
    topography: &Topography,
) -> Vec<(&'static str, Global)> {
    let c = &summary.vertical.config;
    let v = &summary.vertical;
    let int = |k: usize| Global::Int(i32::try_from(k).unwrap_or(i32::MAX));
    vec![
        ("Conventions", Global::Text("CF-1.8".into())),
        (
            "title",
            Global::Text(
                "static fields of ICON's dycore (geometry, interpolation, metrics) under \
                 ICON4Py's names"
                    .into(),
            ),
        ),
        (
            "source",
            Global::Text(format!("foehn {}", env!("CARGO_PKG_VERSION"))),
        ),
        ("grid_name", Global::Text(grid.name.clone())),
        (
            "topography",
            Global::Text(topography_name(topography).into()),
        ),
        ("index_base", Global::Int(0)),
        ("num_levels", int(c.num_levels)),
        ("model_top_height", Global::Real(c.model_top_height)),
        (
            "lowest_layer_thickness",
            Global::Real(c.lowest_layer_thickness),
        ),
        (
            "maximal_layer_thickness",
            Global::Real(c.maximal_layer_thickness),
        ),
        (
            "top_height_limit_for_maximal_layer_thickness",
            Global::Real(c.top_height_limit_for_maximal_layer_thickness),
        ),
        ("stretch_factor", Global::Real(c.stretch_factor)),
        ("flat_height", Global::Real(c.flat_height)),
        (
            "rayleigh_damping_height",
            Global::Real(c.rayleigh_damping_height),
        ),
        ("htop_moist_proc", Global::Real(c.htop_moist_proc)),
        ("sleve_decay_scale_1", Global::Real(c.sleve_decay_scale_1)),
        ("sleve_decay_scale_2", Global::Real(c.sleve_decay_scale_2)),
        ("sleve_decay_exponent", Global::Real(c.sleve_decay_exponent)),
        ("nflatlev", int(v.nflatlev)),
        ("nflat_gradp", int(summary.nflat_gradp)),
        (
            "end_index_of_damping_layer",
            int(v.end_index_of_damping_layer),
        ),
        ("kstart_moist", int(v.kstart_moist)),
    ]
}

/// The vertical-grid options of `foehn grid info`.
#[derive(Args, Debug, Default)]
pub struct InfoVertical {
    /// Also summarise the vertical grid of N levels over the topography (level indices,
    /// model top, lowest layer), with the options below.
    #[arg(long, value_name = "N")]
    pub levels: Option<usize>,
    /// Vertical grid and topography (with --levels).
    #[command(flatten)]
    pub vertical: VerticalOptions,
}

/// Prints the vertical-grid summary of `grid info --levels N`; nothing without
/// `--levels`; vertical options without it are refused.
pub fn print_vertical_summary(grid: &Grid, a: &InfoVertical) -> Result<()> {
    let Some(levels) = a.levels else {
        let given = a.vertical.given();
        if !given.is_empty() {
            bail!(
                "{}: vertical-grid options need --levels N as well",
                given.join(", ")
            );
        }
        return Ok(());
    };
    let topography = a.vertical.topography();
    let s = VerticalSummary::compute(grid, a.vertical.config(levels), &topography)
        .map_err(explain)
        .with_context(|| format!("the vertical grid of {}", grid.name))?;
    let v = &s.vertical;
    let n = v.num_levels();
    println!(
        "vertical    {n} levels, topography {} (surface {:.1} m to {:.1} m); indices 0-based, level 0 at the top",
        topography_name(&topography),
        s.surface_range.0,
        s.surface_range.1
    );
    println!(
        "  model top {:.1} m, lowest layer {:.2} m, top layer {:.2} m",
        v.vct_a[0],
        v.vct_a[n - 1] - v.vct_a[n],
        v.vct_a[0] - v.vct_a[1]
    );
    println!(
        "  nflatlev {} (flat at and above {:.1} m), nflat_gradp {}",
        v.nflatlev, v.vct_a[v.nflatlev], s.nflat_gradp
    );
    println!(
        "  end_index_of_damping_layer {} (damping from {:.1} m{}), kstart_moist {}",
        v.end_index_of_damping_layer,
        v.config.rayleigh_damping_height,
        if v.config.rayleigh_damping_height > v.vct_a[0] {
            ", above the top: none"
        } else {
            ""
        },
        v.kstart_moist
    );
    Ok(())
}

/// An `.npz` holds every field at once (NetCDF is written as the fields are computed):
/// refuses, before computing, when the metric fields alone need more memory than the
/// machine has available, instead of being killed for it.
fn check_npz_memory(grid: &Grid, nlev: usize, output: &Path) -> Result<()> {
    use foehn_icon::fields::metrics::MetricId;
    let (n_cells, n_edges) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let bytes: u64 = MetricId::ALL
        .iter()
        .map(|id| {
            let f = id.layout(n_cells, n_edges, nlev);
            let element = match f.data.dtype() {
                "float64" => 8,
                "int32" => 4,
                _ => 1,
            };
            f.shape.iter().product::<usize>() as u64 * element
        })
        .sum();
    let Some(available) = available_memory() else {
        return Ok(());
    };
    if bytes > available {
        bail!(
            "cannot write {}: an .npz file holds every field in memory at once, and the metric \
             fields of {} × {nlev} levels alone need {:.1} GB, more than the {:.1} GB available; \
             write FILE.nc instead (written as the fields are computed), or use fewer levels",
            output.display(),
            grid.name,
            bytes as f64 / 1e9,
            available as f64 / 1e9
        );
    }
    Ok(())
}

/// The memory available to a new allocation (Linux `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
