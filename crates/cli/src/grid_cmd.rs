//! `foehn grid …`: generate grids, write ICON grid files, print grid summaries.

use anyhow::Result;
use clap::Subcommand;
use foehn_grid::info::GridInfo;
use foehn_grid::{Grid, Location, Zone};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::grid_load::{build, load, read_in_process};

/// Grid subcommands.
#[derive(Subcommand)]
pub enum GridCommand {
    /// Generate a grid and write it as an ICON grid file (NetCDF).
    ///
    /// NAME is `rNbK` (global icosahedral, e.g. r2b6), `torus_<L>mx<H>m_res<R>m`
    /// (doubly periodic plane), or a limited area cut from a global grid:
    /// `<global>:cap:<lat>,<lon>,<radius_km>` or `<global>:box:<lat0>,<lat1>,<lon0>,<lon1>`.
    Generate {
        /// Grid name (see above).
        name: String,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
        /// Sphere radius in metres (global and limited-area grids).
        #[arg(long)]
        radius: Option<f64>,
    },
    /// Print counts, zone ranges, edge lengths, area ratio and index locality; with
    /// `--levels N`, also the vertical grid (nflatlev, nflat_gradp,
    /// end_index_of_damping_layer, kstart_moist, model top, lowest layer).
    Info {
        /// A grid name (as for `generate`) or an ICON grid file.
        grid: String,
        /// The vertical grid to summarise.
        #[command(flatten)]
        vertical: crate::fields_cmd::InfoVertical,
    },
    /// Write every static field of the dycore (geometry, interpolation coefficients,
    /// vertical grid, heights, metric fields, reference atmosphere) under ICON4Py's
    /// names and dimension order (index fields 0-based) to NetCDF (`.nc`) or `.npz`.
    Fields(crate::fields_cmd::FieldsArgs),
    /// Read a grid file and write it as foehn's classic NetCDF (used to read NetCDF-4
    /// files in a child process, so that a crash of the HDF5 library on a damaged file
    /// cannot take foehn down).
    #[command(hide = true)]
    ToClassic {
        /// The grid file to read.
        input: PathBuf,
        /// The classic NetCDF file to write.
        output: PathBuf,
    },
}

/// Runs a grid subcommand.
pub fn run(cmd: GridCommand) -> Result<()> {
    match cmd {
        GridCommand::Generate {
            name,
            output,
            radius,
        } => {
            let t0 = Instant::now();
            let grid = build(&name, radius)?;
            let built = t0.elapsed();
            write_file(&grid, &output)?;
            println!(
                "{}: {} cells, {} edges, {} vertices; generated in {:.2} s, written to {} in {:.2} s",
                grid.name,
                grid.size(Location::Cell),
                grid.size(Location::Edge),
                grid.size(Location::Vertex),
                built.as_secs_f64(),
                output.display(),
                (t0.elapsed() - built).as_secs_f64()
            );
            Ok(())
        }
        GridCommand::ToClassic { input, output } => {
            let grid = read_in_process(&input)?;
            write_file(&grid, &output)
        }
        GridCommand::Info { grid, vertical } => {
            let t0 = Instant::now();
            let grid = load(&grid)?;
            print_info(&grid, t0.elapsed().as_secs_f64());
            crate::fields_cmd::print_vertical_summary(&grid, &vertical)
        }
        GridCommand::Fields(a) => crate::fields_cmd::run(a),
    }
}

fn print_info(grid: &Grid, seconds: f64) {
    let info = GridInfo::of(grid);
    let (c, e, v) = info.counts;
    println!("grid        {}", grid.name);
    println!("kind        {}", grid.kind);
    println!("counts      {c} cells, {e} edges, {v} vertices (built/read in {seconds:.2} s)");
    println!(
        "limited     {}",
        if grid.is_limited_area() {
            "yes"
        } else {
            "no (global or periodic)"
        }
    );
    let (min, mean, max) = info.edge_length;
    println!(
        "edge length min {:.1} m, mean {:.1} m, max {:.1} m",
        min, mean, max
    );
    println!(
        "cell area   mean {:.4e} m², max/min ratio {:.4}",
        info.mean_cell_area, info.area_ratio
    );
    println!(
        "locality    {:.2} (mean scaled index distance over E2C, C2E, C2E2C pairs)",
        info.locality
    );
    println!("zones       [start, end)");
    for loc in Location::ALL {
        let z = grid.zones.of(loc);
        let parts: Vec<String> = z
            .ranges()
            .filter(|(zone, s, e)| e > s || matches!(zone, Zone::Interior | Zone::Local))
            .map(|(zone, s, e)| format!("{zone} [{s}, {e})"))
            .collect();
        println!("  {:<7} {}", loc.name(), parts.join(", "));
    }
}

#[cfg(feature = "netcdf")]
fn write_file(grid: &Grid, path: &Path) -> Result<()> {
    Ok(foehn_grid::io::write_grid(grid, path)?)
}

#[cfg(not(feature = "netcdf"))]
fn write_file(_: &Grid, path: &Path) -> Result<()> {
    anyhow::bail!(
        "cannot write {}: this foehn was built without NetCDF support (feature `netcdf`)",
        path.display()
    )
}
