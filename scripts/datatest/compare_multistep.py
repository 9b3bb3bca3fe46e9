#!/usr/bin/env python3
"""foehn's Jablonowski–Williamson run against ICON4Py's over several time steps.

Reads ICON4Py's full states (``icon4py_jw_reference.py --steps N --at … --full FILE``)
and foehn's (``cargo run --release -p foehn-driver --example jw_multistep_dump -- --at …
--out DIR``), both on the grid file ``foehn grid generate r2b4`` writes, and prints for
each step both have:

- per prognostic field: the largest |foehn − ICON4Py|, the rms of the difference relative
  to the rms of the field and relative to the rms of the field's change since t = 0
  (ICON4Py's);
- the zonal asymmetry ``l2(u − ū)`` of both states, computed here the same way for both:
  ``u`` at cells from ``vn`` by a least-squares fit of a linear wind field in the cell's
  tangent plane to the normal winds of the cell's and its neighbours' edges (the grid
  file's Cartesian normals and midpoints); ``ū`` on each level the
  area-weighted least-squares cubic in latitude over the cell's latitude band (bands one
  mean cell spacing wide) and its two neighbours, evaluated at the cell's latitude; the
  norm weighted by the layer mass ``ρ·A·Δz`` (``Δz`` from ICON4Py's half-level heights).
  This follows the definition of foehn's series (crates/driver/src/output/series.rs) but
  with an independent ``u``, so its values are close to, not equal to, foehn's CSV;
- the surface pressure of both states, computed here the same way for both, as ICON
  diagnoses it (``diagnose_surface_pressure``: hydrostatic integration from the
  third-lowest full level with ``Tv = θv·π``, ``Δz`` from ICON4Py's half-level heights;
  foehn's ``crates/driver/src/diagnostics.rs``): each state's minimum (hPa) with its cell's
  longitude and latitude, and the largest |Δ p_s| (Pa).

The steady state and the baroclinic wave (both sides' ``--wave``) are compared alike.

Needs numpy and netCDF4 (the ICON4Py venv has both)::

    /work/venv-icon4py/bin/python scripts/datatest/compare_multistep.py \\
        --grid /tmp/r2b4.nc --icon4py /tmp/icon_full.npz --foehn /tmp/foehn_jw
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

FIELDS = ("vn", "w", "rho", "exner", "theta_v")
Z_IFC = "vertical_coordinates_on_half_levels"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--grid", type=pathlib.Path, required=True, help="the ICON grid file")
    p.add_argument("--icon4py", type=pathlib.Path, required=True, help="ICON4Py's --full .npz")
    p.add_argument("--foehn", type=pathlib.Path, required=True, help="foehn's dump folder")
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    return p.parse_args()


class Geometry:
    """What the wind reconstruction and the zonal mean need of the grid file."""

    def __init__(self, path: pathlib.Path):
        import netCDF4

        with netCDF4.Dataset(path) as nc:
            get = lambda name: np.asarray(nc[name][:], dtype=np.float64)  # noqa: E731
            self.clat, self.clon, self.area = get("clat"), get("clon"), get("cell_area")
            normal = np.stack([get(f"edge_primal_normal_cartesian_{c}") for c in "xyz"], axis=1)
            self.c2e = np.asarray(nc["edge_of_cell"][:], dtype=np.int64).T - 1
            neighbours = np.asarray(nc["neighbor_cell_index"][:], dtype=np.int64).T - 1
            centre = np.stack([get(f"cell_circumcenter_cartesian_{c}") for c in "xyz"], axis=1)
            mid = np.stack([get(f"edge_middle_cartesian_{c}") for c in "xyz"], axis=1)
        if (self.c2e < 0).any() or (neighbours < 0).any():
            sys.exit(f"{path}: a cell without three edges or neighbours (not a global grid)")
        # Unit vectors (the file may give them on a sphere of another radius).
        centre /= np.linalg.norm(centre, axis=1, keepdims=True)
        mid /= np.linalg.norm(mid, axis=1, keepdims=True)
        east = np.stack([-np.sin(self.clon), np.cos(self.clon), np.zeros_like(self.clon)], axis=1)
        north = np.stack(
            [
                -np.sin(self.clat) * np.cos(self.clon),
                -np.sin(self.clat) * np.sin(self.clon),
                np.cos(self.clat),
            ],
            axis=1,
        )
        # The wind near a cell as a linear field in the cell's tangent plane, u = u0 +
        # ux·x + uy·y, v likewise (x, y: east and north of the cell centre), fitted in
        # least squares to vn_e = n_e·(u·east + v·north) on the cell's edges and its
        # neighbours' (12 rows, the cell's own edges twice, 6 unknowns); second order,
        # where a fit of a constant to the three edges alone leaves O(Δx) (0.2 m/s on
        # the JW jet at R2B4, swamping the asymmetry). u = u0.
        stencil = np.concatenate([self.c2e, self.c2e[neighbours].reshape(-1, 9)], axis=1)
        n = normal[stencil]  # [cells, 12, xyz]
        offset = mid[stencil] - centre[:, None, :]
        x = np.einsum("cex,cx->ce", offset, east)
        y = np.einsum("cex,cx->ce", offset, north)
        ne = np.einsum("cex,cx->ce", n, east)
        nn = np.einsum("cex,cx->ce", n, north)
        a = np.stack([ne, ne * x, ne * y, nn, nn * x, nn * y], axis=2)
        self.stencil = stencil
        self.u_weights = np.linalg.pinv(a)[:, 0, :]  # [cells, 12]
        self.bands = self._bands(neighbours)

    def _bands(self, neighbours: np.ndarray):
        """Per band: its cells, the cells of it and its neighbours, and the fit's
        matrix (cubic in the scaled latitude, area-weighted) mapping those cells' values
        to the band's cells' zonal means."""
        valid = neighbours >= 0
        cos = (
            np.sin(self.clat)[:, None] * np.sin(self.clat[neighbours])
            + np.cos(self.clat)[:, None]
            * np.cos(self.clat[neighbours])
            * np.cos(self.clon[neighbours] - self.clon[:, None])
        )
        spacing = np.arccos(np.clip(cos[valid], -1.0, 1.0)).mean()
        count = max(1, round(np.pi / spacing))
        width = np.pi / count
        band = np.clip(np.floor((self.clat + np.pi / 2) / width).astype(int), 0, count - 1)
        bands = []
        for b in range(count):
            own = np.flatnonzero(band == b)
            near = np.flatnonzero(np.abs(band - b) <= 1)
            centre = -np.pi / 2 + (b + 0.5) * width
            x_near = (self.clat[near] - centre) / width
            x_own = (self.clat[own] - centre) / width
            degree = min(3, len(np.unique(np.round(x_near, 12))) - 1)
            v_near = np.vander(x_near, degree + 1, increasing=True)
            v_own = np.vander(x_own, degree + 1, increasing=True)
            w = self.area[near]
            coef = np.linalg.solve(v_near.T @ (w[:, None] * v_near), v_near.T * w)
            bands.append((own, near, v_own @ coef))
        return bands

    def u(self, vn: np.ndarray) -> np.ndarray:
        """Eastward wind at cells [cells, levels] from vn [edges, levels]."""
        return np.einsum("ce,cek->ck", self.u_weights, vn[self.stencil])

    def zonal_mean(self, f: np.ndarray) -> np.ndarray:
        out = np.empty_like(f)
        for own, near, fit in self.bands:
            out[own] = fit @ f[near]
        return out

    def asymmetry(self, vn: np.ndarray, rho: np.ndarray, z_ifc: np.ndarray) -> float:
        """Mass-weighted l2(u − ū), m/s."""
        u = self.u(vn)
        mass = rho * self.area[:, None] * (z_ifc[:, :-1] - z_ifc[:, 1:])
        return float(np.sqrt(np.sum(mass * (u - self.zonal_mean(u)) ** 2) / np.sum(mass)))


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x**2)))


#: ICON's constants: reference pressure (Pa), gas constant and heat capacity of dry air
#: (J/(kg K)), gravity (m/s²).
P0REF, RD, CPD, GRAV = 100000.0, 287.04, 1004.64, 9.80665


def surface_pressure(exner: np.ndarray, theta_v: np.ndarray, z_ifc: np.ndarray) -> np.ndarray:
    """ICON's diagnosed surface pressure (Pa) of every cell, ``p0ref·exp(cpd/rd·ln π[n−3] +
    g/rd·(Δz[n−1]/Tv[n−1] + Δz[n−2]/Tv[n−2] + ½·Δz[n−3]/Tv[n−3]))`` with ``Tv = θv·π``,
    ``Δz`` the layer thickness and ``n`` the number of levels (level 0 at the top)."""
    dz = z_ifc[:, :-1] - z_ifc[:, 1:]
    over_tv = dz[:, -3:] / (theta_v[:, -3:] * exner[:, -3:])
    return P0REF * np.exp(
        CPD / RD * np.log(exner[:, -3])
        + GRAV / RD * (over_tv[:, 2] + over_tv[:, 1] + 0.5 * over_tv[:, 0])
    )


def ps_minimum(ps: np.ndarray, geo: "Geometry") -> tuple[float, float, float]:
    """The smallest surface pressure (hPa) and its cell's longitude and latitude (°)."""
    c = int(np.argmin(ps))
    return ps[c] / 100.0, float(np.degrees(geo.clon[c])), float(np.degrees(geo.clat[c]))


def main() -> None:
    args = parse_args()
    geo = Geometry(args.grid)
    icon = np.load(args.icon4py)
    z_ifc = icon[Z_IFC]
    steps = sorted(
        int(k[4:].split("_")[0]) for k in icon.files if k.startswith("step") and k.endswith("_vn")
    )
    rows = []
    for n in [0] + steps:
        dump = args.foehn / f"foehn_step{n}.npz"
        if not dump.exists():
            print(f"step {n}: no {dump}, skipped", file=sys.stderr)
            continue
        ours = np.load(dump)
        name = "initial" if n == 0 else f"step{n}"
        theirs = {f: icon[f"{name}_{f}"] for f in FIELDS}
        cols = []
        for f in FIELDS:
            d = ours[f] - theirs[f]
            change = rms(theirs[f] - icon[f"initial_{f}"])
            cols.append(
                (f, np.abs(d).max(), rms(d) / rms(theirs[f]), rms(d) / change if change > 0 else np.nan)
            )
        asym = (
            geo.asymmetry(ours["vn"], ours["rho"], z_ifc),
            geo.asymmetry(theirs["vn"], theirs["rho"], z_ifc),
        )
        ps_ours = surface_pressure(ours["exner"], ours["theta_v"], z_ifc)
        ps_theirs = surface_pressure(theirs["exner"], theirs["theta_v"], z_ifc)
        ps_diff = np.abs(ps_ours - ps_theirs).max()
        ps = (ps_minimum(ps_ours, geo), ps_minimum(ps_theirs, geo), ps_diff)
        info = ours["info"] if "info" in ours.files else None
        rows.append((n, cols, asym, info, icon.get(f"{name}_info"), ps))
    if args.markdown:
        head = "| step | t (h) | " + " | ".join(f"{f}: max abs Δ (rms Δ/rms)" for f in FIELDS)
        print(head + " | l2(u − ū) foehn, m/s | l2(u − ū) ICON4Py, m/s |")
        print("|" + "---|" * (len(FIELDS) + 4))
        for n, cols, asym, *_ in rows:
            cells = " | ".join(f"{m:.1e} ({r:.1e})" for _, m, r, _ in cols)
            print(f"| {n} | {n * 300 / 3600:.2f} | {cells} | {asym[0]:.6e} | {asym[1]:.6e} |")
        print()
        where = "hPa (lon°, lat°)"
        print(f"| step | t (h) | min p_s foehn, {where} | min p_s ICON4Py, {where} | max abs Δ p_s, Pa |")
        print("|---|---|---|---|---|")
        for n, *_, (ours, theirs, d) in rows:
            where = [f"{p:.6f} ({lon:.1f}, {lat:.1f})" for p, lon, lat in (ours, theirs)]
            print(f"| {n} | {n * 300 / 3600:.2f} | {where[0]} | {where[1]} | {d:.1e} |")
        return
    for n, cols, asym, info, icon_info, ps in rows:
        print(f"step {n} (t = {n * 300 / 3600:.2f} h)")
        for f, m, r, c in cols:
            print(f"  {f:>8}: max |Δ| {m:.3e}  rms Δ/rms {r:.3e}  rms Δ/rms change {c:.3e}")
        print(f"  l2(u − ū): foehn {asym[0]:.6e}  ICON4Py {asym[1]:.6e}  Δ {asym[0] - asym[1]:.2e}")
        for who, (p, lon, lat) in zip(("foehn", "ICON4Py"), ps):
            print(f"  min p_s {who}: {p:.6f} hPa at {lon:.1f}°E, {lat:.1f}°N")
        print(f"  max |Δ p_s| {ps[2]:.3e} Pa")
        if info is not None and n > 0:
            print(f"  foehn: {int(info[2])} substeps, vertical CFL {info[3]:.3e} (max so far {info[4]:.3e})")
        if icon_info is not None:
            print(f"  ICON4Py: {int(icon_info[0])} substeps, vertical CFL {icon_info[1]:.3e}")


if __name__ == "__main__":
    main()
