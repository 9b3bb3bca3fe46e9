//! Reading ICON grid files (foehn's own and ICON's).

use super::digest::grid_uuid;
use super::names::{self, attr, count_dim, global, width_dim, TableName, TABLES};
use super::nc::{Dim, Reader};
use crate::connectivity::{Connectivity as C, NeighborTable, SKIP};
use crate::error::{GridError, Result};
use crate::generate::{icosahedral_counts, TorusLayout};
use crate::geometry::{Geometry, Points};
use crate::grid::{fmt_num, Grid, GridKind};
use crate::space::{dot, normalize, unit_from_lat_lon, Space, Vec3, EARTH_RADIUS};
use crate::topology::{PrimaryTables, Topology};
use crate::zones::{LocationZones, Zones};
use crate::Location;
use std::path::Path;

/// Reads an ICON grid file written by [`write_grid`](super::write_grid) or by ICON's
/// grid generators.
///
/// Reads the eight neighbour tables (1-based; 0 or negative is "no neighbour"), stored
/// `(nv, cell)` as ICON does or `(cell, nv)`; the positions from the Cartesian
/// variables, or from latitude/longitude where those are absent (spheres only); the
/// space from the global attributes (`grid_geometry`, `sphere_radius` defaulting to
/// [`EARTH_RADIUS`], `domain_length`/`domain_height`); the zones from `refin_*_ctrl`
/// (all interior where absent). Geometry is recomputed from the positions, never read.
/// Classic-format files shorter than their variables' data are rejected as truncated.
/// Files written by foehn must also end with their end marker (catching any truncation)
/// and their `uuidOfHGrid` must match the contents (catching modification).
///
/// Every failure is a [`GridError`] naming the file and the variable (`:name` for a
/// global attribute); malformed input never panics.
pub fn read_grid(path: &Path) -> Result<Grid> {
    let (file, format) = super::open::open(path)?;
    let r = Reader { file: &file, path };
    if format == super::open::Format::Classic {
        r.check_size()?;
    }
    check_end_marker(&r)?;
    let counts = Counts::read(&r)?;
    let topology = read_topology(&r, &counts)?;
    let space = read_space(&r)?;
    let points = Points {
        cell: read_points(&r, Location::Cell, counts.dim(Location::Cell), &space)?,
        edge: read_points(&r, Location::Edge, counts.dim(Location::Edge), &space)?,
        vertex: read_points(&r, Location::Vertex, counts.dim(Location::Vertex), &space)?,
    };
    let zones = Zones {
        cell: read_zones(&r, Location::Cell, counts.dim(Location::Cell))?,
        edge: read_zones(&r, Location::Edge, counts.dim(Location::Edge))?,
        vertex: read_zones(&r, Location::Vertex, counts.dim(Location::Vertex))?,
    };
    let geometry = Geometry::compute(&space, &topology, &points);
    let (name, kind) = read_kind(&r, &space, &counts, &zones, &geometry)?;
    let grid = Grid::from_parts(name, kind, space, topology, points, geometry, zones);
    check_uuid(&r, &grid)?;
    super::consistency::check(&r, &grid)?;
    Ok(grid)
}

/// Numbers of cells, edges and vertices (the `cell`, `edge`, `vertex` dimensions).
struct Counts([usize; 3]);

impl Counts {
    fn read(r: &Reader<'_>) -> Result<Counts> {
        let mut n = [0; 3];
        for (slot, loc) in n.iter_mut().zip(Location::ALL) {
            let dim = count_dim(loc);
            *slot = r.dim_len(dim)?;
            if *slot >= i32::MAX as usize {
                return Err(r.failure(format!(
                    "dimension `{dim}` has {slot} entries, too many for int indices"
                )));
            }
        }
        Ok(Counts(n))
    }

    fn of(&self, loc: Location) -> usize {
        match loc {
            Location::Cell => self.0[0],
            Location::Edge => self.0[1],
            Location::Vertex => self.0[2],
        }
    }

    fn dim(&self, loc: Location) -> Dim {
        (count_dim(loc), self.of(loc))
    }
}

fn table_name(conn: C) -> &'static TableName {
    TABLES
        .iter()
        .find(|t| t.conn == conn)
        .unwrap_or_else(|| unreachable!("{conn} is not stored"))
}

/// Reads one neighbour table, converting 1-based indices to 0-based and 0 or negative
/// to [`SKIP`]. Tables that geometry indexes without checks must be complete.
fn read_table(r: &Reader<'_>, counts: &Counts, conn: C) -> Result<NeighborTable> {
    let t = table_name(conn);
    let (from, to, w) = (conn.from(), conn.to(), conn.width());
    let targets = counts.of(to);
    let raw = r.int_table(t.name, (width_dim(w), w), counts.dim(from))?;
    let at = |i: usize| {
        format!(
            "{} {} (1-based), entry {}",
            from.name().to_lowercase(),
            i / w + 1,
            i % w + 1
        )
    };
    if let Some(i) = raw.iter().position(|&v| v > 0 && v as usize > targets) {
        let message = format!(
            "holds {} at {}; indices are 1..={targets} (dimension `{}`), or 0 for none",
            raw[i],
            at(i),
            count_dim(to)
        );
        return Err(r.bad(t.name, message));
    }
    let data = raw
        .into_iter()
        .map(|v| if v <= 0 { SKIP } else { v - 1 })
        .collect();
    let table = NeighborTable::new(w, data);
    match conn {
        C::C2V | C::C2E | C::E2V => {
            if let Some(i) = table.as_slice().iter().position(|&v| v == SKIP) {
                return Err(r.bad(
                    t.name,
                    format!("has no index at {}; every {from} needs all {w}", at(i)),
                ));
            }
        }
        C::V2E => {
            for v in 0..table.rows() {
                let row = table.row(v);
                let valid = row.iter().take_while(|&&e| e != SKIP).count();
                let message = if valid == 0 {
                    format!("vertex {} (1-based) has no edges", v + 1)
                } else if row[valid..].iter().any(|&e| e != SKIP) {
                    format!("vertex {} (1-based) has a 0 before its last edge", v + 1)
                } else {
                    continue;
                };
                return Err(r.bad(t.name, message));
            }
        }
        _ => {}
    }
    Ok(table)
}

fn read_topology(r: &Reader<'_>, counts: &Counts) -> Result<Topology> {
    let t = |conn| read_table(r, counts, conn);
    Topology::from_primary(PrimaryTables {
        c2v: t(C::C2V)?,
        c2e: t(C::C2E)?,
        e2c: t(C::E2C)?,
        e2v: t(C::E2V)?,
        v2e: t(C::V2E)?,
        v2c: t(C::V2C)?,
        v2e2v: t(C::V2E2V)?,
        c2e2c: t(C::C2E2C)?,
    })
    .map_err(|e| r.failure(e.to_string()))
}

fn positive(r: &Reader<'_>, name: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(r.bad(&global(name), format!("is {x}, expected a positive length")))
    }
}

fn read_space(r: &Reader<'_>) -> Result<Space> {
    match r
        .attr_int(attr::GRID_GEOMETRY)?
        .unwrap_or(names::GEOMETRY_SPHERE.into())
    {
        g if g == i64::from(names::GEOMETRY_SPHERE) => {
            let radius = r.attr_f64(attr::SPHERE_RADIUS)?.unwrap_or(EARTH_RADIUS);
            Ok(Space::Sphere {
                radius: positive(r, attr::SPHERE_RADIUS, radius)?,
            })
        }
        g if g == i64::from(names::GEOMETRY_TORUS) => {
            let length = r.require(attr::DOMAIN_LENGTH, r.attr_f64(attr::DOMAIN_LENGTH)?)?;
            let height = r.require(attr::DOMAIN_HEIGHT, r.attr_f64(attr::DOMAIN_HEIGHT)?)?;
            Ok(Space::Torus {
                length: positive(r, attr::DOMAIN_LENGTH, length)?,
                height: positive(r, attr::DOMAIN_HEIGHT, height)?,
            })
        }
        g => Err(r.bad(
            &global(attr::GRID_GEOMETRY),
            format!(
                "is {g}; foehn reads spheres ({}) and tori ({})",
                names::GEOMETRY_SPHERE,
                names::GEOMETRY_TORUS
            ),
        )),
    }
}

/// Positions from the Cartesian variables (kept bit for bit; sphere points off the unit
/// sphere are normalised, torus points wrapped into the domain), else from lat/lon.
fn read_points(r: &Reader<'_>, loc: Location, dim: Dim, space: &Space) -> Result<Vec<Vec3>> {
    let n = names::point_names(loc);
    if n.cartesian.iter().any(|c| r.has(c)) || !space.is_sphere() {
        let [x, y, z] = n.cartesian;
        let (x, y, z) = (r.reals(x, dim)?, r.reals(y, dim)?, r.reals(z, dim)?);
        let points = x.into_iter().zip(y).zip(z).map(|((x, y), z)| [x, y, z]);
        return Ok(match space {
            Space::Sphere { .. } => points
                .map(|p| {
                    if (dot(p, p) - 1.0).abs() > 1e-6 {
                        normalize(p)
                    } else {
                        p
                    }
                })
                .collect(),
            Space::Torus { .. } => points.map(|p| space.wrap(p)).collect(),
        });
    }
    let angle = |name: &str| -> Result<Vec<f64>> {
        let values = r.reals(name, dim)?;
        let degrees = r
            .var_text(name, "units")
            .is_some_and(|u| u.trim().starts_with("deg"));
        Ok(if degrees {
            values.into_iter().map(f64::to_radians).collect()
        } else {
            values
        })
    };
    let (lon, lat) = (angle(n.lon)?, angle(n.lat)?);
    Ok(lat
        .into_iter()
        .zip(lon)
        .map(|(lat, lon)| unit_from_lat_lon(lat, lon))
        .collect())
}

fn read_zones(r: &Reader<'_>, loc: Location, dim: Dim) -> Result<LocationZones> {
    let name = names::refin_name(loc);
    let refin = if r.has(name) {
        r.ints(name, dim)?
    } else {
        vec![0; dim.1]
    };
    LocationZones::from_refin_ctrl(loc, refin).map_err(|e| match e {
        GridError::Topology(m) | GridError::InvalidParameters(m) => r.bad(name, m),
        e => e,
    })
}

/// `grid_root` and `grid_level` (bisections).
fn root_level(r: &Reader<'_>) -> Result<(u32, u32)> {
    let get = |name| -> Result<u32> {
        let v = r.require(name, r.attr_int(name)?)?;
        u32::try_from(v).map_err(|_| {
            r.bad(
                &global(name),
                format!("is {v}, expected a non-negative integer"),
            )
        })
    };
    Ok((get(attr::GRID_ROOT)?, get(attr::GRID_LEVEL)?))
}

/// The grid's kind and name: from foehn's attributes, else inferred (ICON files).
fn read_kind(
    r: &Reader<'_>,
    space: &Space,
    counts: &Counts,
    zones: &Zones,
    geometry: &Geometry,
) -> Result<(String, GridKind)> {
    let kind = match r.attr_text(attr::FOEHN_KIND)?.as_deref() {
        Some(names::KIND_ICOSAHEDRAL) => {
            let (root, bisections) = root_level(r)?;
            GridKind::Icosahedral { root, bisections }
        }
        Some(names::KIND_TORUS) => {
            let size = |name| -> Result<usize> {
                let v = r.require(name, r.attr_int(name)?)?;
                usize::try_from(v)
                    .map_err(|_| r.bad(&global(name), format!("is {v}, expected a size")))
            };
            let dx = r.require(attr::TORUS_DX, r.attr_f64(attr::TORUS_DX)?)?;
            GridKind::Torus(TorusLayout {
                nx: size(attr::TORUS_NX)?,
                ny: size(attr::TORUS_NY)?,
                dx,
            })
        }
        Some(names::KIND_LIMITED_AREA) => {
            let (root, bisections) = root_level(r)?;
            let parent = r.require(attr::FOEHN_PARENT, r.attr_text(attr::FOEHN_PARENT)?)?;
            GridKind::LimitedArea {
                parent,
                root,
                bisections,
            }
        }
        Some(other) => {
            return Err(r.bad(
                &global(attr::FOEHN_KIND),
                format!(
                    "is `{other}`, expected {}, {} or {}",
                    names::KIND_ICOSAHEDRAL,
                    names::KIND_TORUS,
                    names::KIND_LIMITED_AREA
                ),
            ))
        }
        None => infer_kind(r, space, counts, zones, geometry)?,
    };
    let name = match r.attr_text(attr::FOEHN_NAME)? {
        Some(name) => name,
        None => default_name(r.path, space, &kind),
    };
    Ok((name, kind))
}

/// The kind of a file without foehn's attributes: a torus (layout from its extent and
/// mean edge length), a global grid RnBk if the counts are those of one and no point
/// lies in a boundary zone, else a limited area of RnBk.
fn infer_kind(
    r: &Reader<'_>,
    space: &Space,
    counts: &Counts,
    zones: &Zones,
    geometry: &Geometry,
) -> Result<GridKind> {
    if let Space::Torus { length, height } = *space {
        let lengths = &geometry.primal_edge_length;
        let mean = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        let dx = r.attr_f64(attr::TORUS_DX)?.unwrap_or(mean);
        let dy = TorusLayout { nx: 0, ny: 0, dx }.dy();
        let (nx, ny) = ((length / dx).round(), (height / dy).round());
        return Ok(GridKind::Torus(TorusLayout {
            nx: nx as usize,
            ny: ny as usize,
            dx,
        }));
    }
    let (root, bisections) = root_level(r)?;
    let n = (
        counts.of(Location::Cell),
        counts.of(Location::Edge),
        counts.of(Location::Vertex),
    );
    let global = root > 0 && bisections <= 12 && n == icosahedral_counts(root, bisections);
    Ok(if global && !zones.is_limited_area() {
        GridKind::Icosahedral { root, bisections }
    } else {
        GridKind::LimitedArea {
            parent: format!("r{root}b{bisections}"),
            root,
            bisections,
        }
    })
}

/// foehn's name for a grid read from an ICON file.
fn default_name(path: &Path, space: &Space, kind: &GridKind) -> String {
    match (kind, space) {
        (GridKind::Icosahedral { root, bisections }, _) => format!("r{root}b{bisections}"),
        (GridKind::Torus(t), Space::Torus { length, height }) => {
            format!(
                "torus_{}mx{}m_res{}m",
                fmt_num(*length),
                fmt_num(*height),
                fmt_num(t.dx)
            )
        }
        _ => path
            .file_stem()
            .map_or_else(|| "grid".into(), |s| s.to_string_lossy().into_owned()),
    }
}

/// Files written by foehn end with [`names::END_MARKER`]; classic NetCDF reads data past
/// the end of a truncated file as zeros.
fn check_end_marker(r: &Reader<'_>) -> Result<()> {
    if !r.has(names::END_MARKER) {
        return Ok(());
    }
    let dim = (names::MAX_CHDOM, 1);
    match r.ints(names::END_MARKER, dim)?.as_slice() {
        [v] if *v == names::END_MARKER_VALUE => Ok(()),
        _ => Err(r.failure(format!(
            "is truncated: its last variable `{}` does not hold {:#x}",
            names::END_MARKER,
            names::END_MARKER_VALUE
        ))),
    }
}

/// Files written by foehn carry their content hash in `uuidOfHGrid`.
fn check_uuid(r: &Reader<'_>, grid: &Grid) -> Result<()> {
    if r.attr_text(attr::FOEHN_KIND)?.is_none() {
        return Ok(());
    }
    let Some(stored) = r.attr_text(attr::UUID)? else {
        return Ok(());
    };
    let computed = grid_uuid(grid);
    if stored == computed {
        return Ok(());
    }
    Err(r.bad(
        &global(attr::UUID),
        format!(
            "is {stored}, but the contents hash to {computed}: the file is truncated or was \
             changed after foehn wrote it"
        ),
    ))
}
