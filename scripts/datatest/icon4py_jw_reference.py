#!/usr/bin/env python3
"""Reference data for foehn's Jablonowski–Williamson datatest, computed by ICON4Py.

ICON4Py's standalone driver (``icon4py.model.standalone_driver``, PyPI ``icon4py==0.2.0``
with ``gt4py==1.1.10``) runs ICON's JW experiment ``exclaim_nh35_tri_jws``: the JW steady
state (no perturbation) on a global grid with 35 levels (model top 23 500 m, flat above
16 000 m, SLEVE over the JW surface), time steps of 300 s, each 5 ``solve_nonhydro``
substeps followed by the diffusion (Smagorinsky + 4th order, no initial diffusion). Its
initial condition and its dycore are themselves datatested against Fortran ICON at the
tolerances foehn's test uses, so ICON4Py computing on foehn's grid file is the closest
independent reference we have to ICON.

This script runs that driver on an ICON grid file written by foehn — unchanged but for
one thing: the initial wind uses the grid file's edge normals, as Fortran ICON does
(``use_file_normals``; ``--icon4py-normals`` keeps ICON4Py's; docs/adr/0018) — and
writes a small ``.npz`` for ``crates/driver/tests/jw_datatest.rs``:

- ``cells`` / ``edges`` (int32): a deterministic sample of cell and edge indices (0-based,
  the grid file's order): a cell and two edges at each of the 12 pentagon vertices, the
  rest drawn with a fixed seed;
- ``cell_lat``/``cell_lon``/``edge_lat``/``edge_lon`` (rad) of the samples, ``vct_a``
  (m, nlev + 1) and ``z_ifc`` (m, [cells, nlev + 1]) at the sampled cells: the test checks
  that foehn's grid and vertical grid are the ones the reference was made on;
- ``initial_<f>`` and ``step<n>_<f>`` for ``f`` in vn [edges, nlev], w [cells, nlev + 1],
  rho, exner, theta_v [cells, nlev]: the state at t = 0 and after ``n`` time steps, for
  each ``n`` of ``--at`` (default: every step up to ``--steps``, default 1);
- ``initial_norms`` / ``step<n>_norms`` [5, 2] (the steps' arrays only without
  ``--initial-only``): (root mean square, largest |x|) of the whole fields in the order
  vn, w, rho, exner, theta_v;
- ``step<n>_info`` [4]: ICON4Py's substeps in step ``n``, the step's largest vertical
  CFL number, whether the CFL watch mode is on after it (0/1), the simulated time (s).

The committed file is made with ``--steps 2``: the second step is the first to run the
solver's paths for later steps (``at_initial_timestep`` false: the predictor reuses the
previous corrector's advection tendencies).

How to run (CPU only, gt4py's ``gtfn_cpu`` backend: a C++ compiler, CMake (pulled in by
pip) and the Boost headers, e.g. apt ``libboost-dev``; the first run compiles ICON4Py's
programs, about 75 min on this shared 2-core machine; later runs reuse the persistent gt4py
cache and take under a minute)::

    python3 -m venv /work/venv-icon4py
    /work/venv-icon4py/bin/pip install icon4py==0.2.0
    foehn grid generate r2b4 -o /tmp/r2b4.nc
    PATH=/work/venv-icon4py/bin:$PATH \\
    GT4PY_BUILD_CACHE_LIFETIME=persistent GT4PY_BUILD_CACHE_DIR=/work/venv-icon4py/gt4py-cache \\
        python scripts/datatest/icon4py_jw_reference.py --grid /tmp/r2b4.nc --steps 2 \\
            --output crates/driver/tests/data/jw_r2b4_icon4py.npz

``--wave`` runs the baroclinic wave instead of the steady state: ICON's JW test with the
zonal-wind perturbation on (``jw_up`` = 1 m/s, a Gaussian of radius a/10 centred at 20°E,
40°N, ICON's experiment ``nh35_tri_jw``). ICON4Py 0.2.0 hard-wires the amplitude to 0 (a
local variable of its ``jablonowski_williamson`` initial condition, passed on as
``jw_baroclinic_amplitude`` to ``testcases.utils.zonalwind_2_normalwind_ndarray``, the only
place it is used); the option wraps that function in memory for the one call, passing 1
instead (after checking that ICON4Py passes 0 and the centre π/9, 2π/9), and changes
nothing on disk. The perturbation is in ``vn`` only; the other fields are the steady
state's. Compare with ``jw_multistep_dump --wave`` (bench/results/2026-11-24-cpu-icon4py-wave.md).

``--full FILE.npz`` also writes every point of the states (``initial_<f>``,
``step<n>_<f>``) and the static fields the initial state is made from (for looking into a
disagreement, and for ``compare_multistep.py``; not committed).

Over a day (bench/results/2026-11-24-cpu-icon4py-multistep.md; about 10 s a step here)::

    python scripts/datatest/icon4py_jw_reference.py --grid /tmp/r2b4.nc --steps 288 \\
        --at 1,2,3,12,36,72,144,216,288 --output /tmp/ref288.npz --full /tmp/icon_full288.npz

ICON4Py's embedded (pure NumPy) backend cannot run these programs in gt4py 1.1.10
(``concat_where`` on a domain condition is not implemented there), hence ``gtfn_cpu``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import math
import pathlib
import sys
import tempfile
import time

import numpy as np

ICON4PY_VERSION = "0.2.0"
FIELDS = ("vn", "w", "rho", "exner", "theta_v")
#: Sampled points besides those at the pentagons.
N_CELLS, N_EDGES = 80, 120
SEED = 2006


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--grid", type=pathlib.Path, required=True, help="ICON grid file (foehn grid generate r2b4)"
    )
    p.add_argument("--output", type=pathlib.Path, required=True, help="the reference .npz to write")
    p.add_argument("--full", type=pathlib.Path, help="also write every point of both states here")
    p.add_argument("--backend", default="gtfn_cpu", help="gt4py backend (default gtfn_cpu)")
    p.add_argument(
        "--initial-only",
        action="store_true",
        help="only the initial state (ICON4Py's static fields without the dycore's programs: "
        "minutes instead of the dycore's compilation)",
    )
    p.add_argument("--steps", type=int, default=1, help="time steps to run (default 1)")
    p.add_argument(
        "--at",
        help="comma-separated steps after which to write the state (default: every step)",
    )
    p.add_argument(
        "--icon4py-normals",
        action="store_true",
        help="keep ICON4Py's own edge normals for the initial wind instead of the grid file's",
    )
    p.add_argument(
        "--wave",
        action="store_true",
        help="the baroclinic wave: the perturbation on (jw_up = 1 m/s at 20°E, 40°N; patched in "
        "memory, ICON4Py 0.2.0 has it 0)",
    )
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    try:
        at = sorted({int(n) for n in args.at.split(",")}) if args.at else []
    except ValueError:
        p.error(f"--at {args.at!r}: not a comma-separated list of step numbers")
    if any(n < 1 or n > args.steps for n in at):
        p.error(f"--at {args.at!r}: every step must be within 1..--steps ({args.steps})")
    args.at = at or list(range(1, args.steps + 1))
    return args


def check_versions() -> None:
    found = importlib.metadata.version("icon4py")
    if found != ICON4PY_VERSION:
        sys.exit(f"icon4py {found} is installed; this reference is made with icon4py {ICON4PY_VERSION}")


def expect(what: str, value, wanted) -> None:
    """Refuses to run when ICON4Py's driver is not configured as foehn's test assumes."""
    if value != wanted:
        sys.exit(f"ICON4Py's JW driver has {what} = {value!r}; foehn's datatest assumes {wanted!r}")


def check_setup(driver) -> None:
    """ICON's JW setup as foehn's test builds it (foehn `JwRunSpec::icon(35, 300, steady)`,
    `VerticalConfig::new(35)`, no diffusion before the loop)."""
    v = driver.vertical_grid_config
    for name, wanted in [
        ("num_levels", 35),
        ("model_top_height", 23500.0),
        ("flat_height", 16000.0),
        ("lowest_layer_thickness", 50.0),
        ("maximal_layer_thickness", 25000.0),
        ("top_height_limit_for_maximal_layer_thickness", 15000.0),
        ("stretch_factor", 1.0),
        ("rayleigh_damping_height", 45000.0),
        ("SLEVE_decay_scale_1", 4000.0),
        ("SLEVE_decay_scale_2", 2500.0),
        ("SLEVE_decay_exponent", 1.2),
    ]:
        expect(f"vertical {name}", getattr(v, name), wanted)
    t = getattr(driver, "model_time_variables", None)
    if t is None:
        return
    expect("dtime", t.dtime_in_seconds, 300.0)
    expect("ndyn_substeps", t.ndyn_substeps_var, 5)
    expect("time steps", t.n_time_steps, 1)


def use_file_normals(geometry, grid_file: pathlib.Path, backend) -> None:
    """The initial wind ``vn = u·primal_normal_x`` on the grid file's edge normals.

    Fortran ICON reads the edge normals off the grid file (``zonal_normal_primal_edge``,
    ``meridional_normal_primal_edge``); ICON4Py 0.2.0 recomputes them from the vertices'
    latitudes and longitudes, which on foehn's R2B4 file moves ``primal_normal_x`` by up to
    6.9e-14 and ``vn`` by up to 4e-13, beyond the 3.2e-13 ICON4Py's own test allows
    against Fortran ICON. The dycore keeps ICON4Py's normals (the granules hold them
    already); its tolerances are far above this.
    """
    import gt4py.next as gtx
    import netCDF4
    from icon4py.model.common import dimension as dims, model_backends
    from icon4py.model.common.grid import geometry_attributes as geo
    from icon4py.model.common.states import factory

    allocator = model_backends.get_allocator(backend)
    with netCDF4.Dataset(grid_file) as nc:
        normals = {
            name: gtx.as_field((dims.EdgeDim,), np.asarray(nc[var][:], dtype=np.float64), allocator=allocator)
            for name, var in (
                (geo.EDGE_NORMAL_U, "zonal_normal_primal_edge"),
                (geo.EDGE_NORMAL_V, "meridional_normal_primal_edge"),
            )
        }
    geometry.register_provider(factory.PrecomputedFieldProvider(normals))


#: ICON's baroclinic-wave perturbation: amplitude (m/s, ``jw_up``) and centre (rad).
WAVE_AMPLITUDE = 1.0
WAVE_CENTRE = (math.pi / 9.0, 2.0 * math.pi / 9.0)


@contextlib.contextmanager
def wave_perturbation(initial_condition):
    """While active, ICON4Py's JW initial condition adds ICON's baroclinic-wave perturbation
    (``jw_up`` = 1) to the zonal wind: ``zonalwind_2_normalwind_ndarray``, which the initial
    condition calls through its module ``testcases_utils``, is replaced by a wrapper that
    passes ``jw_baroclinic_amplitude`` = 1 where ICON4Py passes its hard-wired 0. Refuses
    to run when ICON4Py passes anything else (another version) or another centre, and when
    the wrapper is not called exactly once."""
    utils = initial_condition.testcases_utils
    original = utils.zonalwind_2_normalwind_ndarray
    calls = []

    def perturbed(**kwargs):
        expect("jw_baroclinic_amplitude", kwargs.get("jw_baroclinic_amplitude"), 0.0)
        centre = (kwargs.get("lon_perturbation_center"), kwargs.get("lat_perturbation_center"))
        if centre != WAVE_CENTRE:
            sys.exit(f"ICON4Py's JW perturbation centre is {centre!r}; ICON's is {WAVE_CENTRE!r}")
        calls.append(1)
        return original(**{**kwargs, "jw_baroclinic_amplitude": WAVE_AMPLITUDE})

    utils.zonalwind_2_normalwind_ndarray = perturbed
    try:
        yield
    finally:
        utils.zonalwind_2_normalwind_ndarray = original
    if len(calls) != 1:
        sys.exit(f"--wave: ICON4Py's initial condition set the wind {len(calls)} times, not once")


def run_steps(driver, ds, at: list[int], t0: float) -> dict[int, dict[str, np.ndarray]]:
    """Runs ICON4Py's time loop up to the last step of ``at`` (``time_integration`` over
    the stretches between those steps: its state, substep count, CFL watch mode and clock
    carry over from one call to the next), the prognostic state and ``info`` after each
    step of ``at``."""
    t = driver.model_time_variables
    cfl = []
    adjust = driver._adjust_ndyn_substeps_var

    def recording(diagnostic_state):
        # Called after each step, before the watch mode changes the substep count.
        cfl.append((t.ndyn_substeps_var, float(np.asarray(diagnostic_state.max_vertical_cfl[()]))))
        adjust(diagnostic_state)

    driver._adjust_ndyn_substeps_var = recording
    states, done = {}, 0
    for n in at:
        t.n_time_steps = n - done
        driver.time_integration(ds, do_prep_adv=False)
        done = n
        substeps, step_cfl = cfl[-1]
        states[n] = prognostics(ds.prognostics.current)
        states[n]["info"] = np.array(
            [substeps, step_cfl, float(t.cfl_watch_mode), t.elapsed_time_in_seconds]
        )
        print(f"step {n} after {time.time() - t0:.0f} s (vertical CFL {step_cfl:.3e})", flush=True)
    return states


def prognostics(state) -> dict[str, np.ndarray]:
    return {f: np.array(getattr(state, f).asnumpy(), dtype=np.float64, copy=True) for f in FIELDS}


def norms(state: dict[str, np.ndarray]) -> np.ndarray:
    """(rms, max |x|) of each field; the sum of squares exactly rounded (``math.fsum``), so
    the summation order does not matter at the tolerances of the test."""
    return np.array(
        [
            [math.sqrt(math.fsum((state[f] ** 2).ravel()) / state[f].size), np.max(np.abs(state[f]))]
            for f in FIELDS
        ]
    )


def pentagon_vertices(grid) -> np.ndarray:
    v2e = np.asarray(grid.get_connectivity("V2E").asnumpy())
    pentagons = np.flatnonzero((v2e < 0).any(axis=1))
    if len(pentagons) != 12:
        sys.exit(f"expected 12 pentagon vertices in a global grid, found {len(pentagons)}")
    return pentagons


def samples(grid) -> tuple[np.ndarray, np.ndarray]:
    """A cell and two edges at every pentagon vertex, then N_CELLS and N_EDGES others."""
    v2c = np.asarray(grid.get_connectivity("V2C").asnumpy())
    v2e = np.asarray(grid.get_connectivity("V2E").asnumpy())
    pent = pentagon_vertices(grid)
    cells = list(v2c[pent, 0])
    edges = [e for v in pent for e in v2e[v, :2]]
    rng = np.random.default_rng(SEED)
    rest_c = np.setdiff1d(np.arange(grid.num_cells), cells)
    rest_e = np.setdiff1d(np.arange(grid.num_edges), edges)
    cells += list(rng.choice(rest_c, N_CELLS, replace=False))
    edges += list(rng.choice(rest_e, N_EDGES, replace=False))
    return np.array(sorted(cells), dtype=np.int32), np.array(sorted(edges), dtype=np.int32)


def static_fields_only(grid_file: pathlib.Path, backend_name: str, tmp: str):
    """What the initial state needs of ICON4Py's driver (grid, vertical grid, JW surface,
    static-field factories), built as ``initialize_driver`` builds it, without its
    granules (whose construction compiles the whole dycore)."""
    import types

    import gt4py.next as gtx
    from icon4py.model.common import dimension as dims, model_backends, model_options
    from icon4py.model.common.decomposition import definitions as decomposition
    from icon4py.model.common.initialization import topography
    from icon4py.model.standalone_driver import driver_utils, standalone_driver

    backend = model_options.customize_backend(
        program=None, backend=driver_utils.get_backend_from_name(backend_name)
    )
    allocator = model_backends.get_allocator(backend)
    _, vertical_config, *_ = standalone_driver._read_config(
        output_path=pathlib.Path(tmp), enable_profiling=False
    )
    props = decomposition.get_process_properties(decomposition.get_runtype(with_mpi=False))
    manager = driver_utils.create_grid_manager(
        grid_file_path=grid_file,
        vertical_grid_config=vertical_config,
        allocator=allocator,
        process_props=props,
    )
    info = manager.decomposition_info
    exchange = decomposition.create_exchange(props, info)
    surface = topography.jablonowski_williamson(
        cell_lat=manager.coordinates[dims.CellDim]["lat"].ndarray, u0=35.0
    )
    factories = driver_utils.create_static_field_factories(
        grid_manager=manager,
        decomposition_info=info,
        vertical_grid=driver_utils.create_vertical_grid(
            vertical_grid_config=vertical_config, allocator=allocator
        ),
        cell_topography=gtx.as_field((dims.CellDim,), data=surface, allocator=allocator),
        backend=backend,
        exchange=exchange,
        global_reductions=decomposition.create_reduction(props, info),
    )
    return types.SimpleNamespace(
        grid=manager.grid,
        static_field_factories=factories,
        backend=backend,
        vertical_grid_config=vertical_config,
        exchange=exchange,
    )


def main() -> None:
    args = parse_args()
    check_versions()
    from icon4py.model.common.grid import geometry_attributes as geo
    from icon4py.model.common.metrics import metrics_attributes as metrics
    from icon4py.model.standalone_driver import driver_utils, standalone_driver
    from icon4py.model.standalone_driver.testcases import initial_condition

    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        if args.initial_only:
            driver = static_fields_only(args.grid, args.backend, tmp)
        else:
            driver = standalone_driver.initialize_driver(
                output_path=pathlib.Path(tmp) / "output",
                grid_file_path=args.grid,
                log_level="warning",
                backend_like=driver_utils.get_backend_from_name(args.backend),
                force_serial_run=True,
            )
        check_setup(driver)
        f = driver.static_field_factories
        if not args.icon4py_normals:
            use_file_normals(f.geometry_field_source, args.grid, driver.backend)
        wave = wave_perturbation(initial_condition) if args.wave else contextlib.nullcontext()
        with wave:
            ds = initial_condition.jablonowski_williamson(
                grid=driver.grid,
                geometry_field_source=f.geometry_field_source,
                interpolation_field_source=f.interpolation_field_source,
                metrics_field_source=f.metrics_field_source,
                backend=driver.backend,
                lowest_layer_thickness=driver.vertical_grid_config.lowest_layer_thickness,
                model_top_height=driver.vertical_grid_config.model_top_height,
                stretch_factor=driver.vertical_grid_config.stretch_factor,
                damping_height=driver.vertical_grid_config.rayleigh_damping_height,
                exchange=driver.exchange,
            )
        initial = prognostics(ds.prognostics.current)
        print(f"initial state after {time.time() - t0:.0f} s", flush=True)
        steps = {} if args.initial_only else run_steps(driver, ds, args.at, t0)

    grid = driver.grid
    cells, edges = samples(grid)
    geometry = f.geometry_field_source
    z_ifc = f.metrics_field_source.get(metrics.CELL_HEIGHT_ON_HALF_LEVEL).asnumpy()
    vct_a = f.metrics_field_source._vertical_grid.vct_a.asnumpy()
    out = {
        "cells": cells,
        "edges": edges,
        "cell_lat": geometry.get(geo.CELL_LAT).asnumpy()[cells],
        "cell_lon": geometry.get(geo.CELL_LON).asnumpy()[cells],
        "edge_lat": geometry.get(geo.EDGE_LAT).asnumpy()[edges],
        "edge_lon": geometry.get(geo.EDGE_LON).asnumpy()[edges],
        "vct_a": np.asarray(vct_a, dtype=np.float64),
        "z_ifc": np.asarray(z_ifc)[cells],
        "initial_norms": norms(initial),
    }
    states = [("initial", initial)] + [(f"step{n}", state) for n, state in steps.items()]
    for name, state in states:
        out[f"{name}_norms"] = norms(state)
        for field in FIELDS:
            out[f"{name}_{field}"] = state[field][edges] if field == "vn" else state[field][cells]
        if "info" in state:
            out[f"{name}_info"] = state["info"]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.output, **out)
    print(f"{args.output}: {args.output.stat().st_size / 1024:.0f} KiB", flush=True)
    if args.full:
        full = {f"{name}_{k}": v for name, state in states for k, v in state.items()}
        for name in (
            metrics.CELL_HEIGHT_ON_HALF_LEVEL,
            metrics.Z_MC,
            metrics.WGTFAC_C,
            metrics.DDQZ_Z_HALF,
            metrics.THETA_REF_MC,
            metrics.THETA_REF_IC,
            metrics.EXNER_REF_MC,
            metrics.D_EXNER_DZ_REF_IC,
        ):
            full[name] = np.asarray(f.metrics_field_source.get(name).asnumpy())
        np.savez(args.full, **full)
        print(f"{args.full}: every point of the states", flush=True)
    for name, state in states:
        print(
            name + ":", ", ".join(f"{k} rms {n[0]:.6e} max {n[1]:.6e}" for k, n in zip(FIELDS, norms(state)))
        )


if __name__ == "__main__":
    main()
