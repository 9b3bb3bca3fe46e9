#!/usr/bin/env python3
import numpy as np, subprocess, re, enum, math, functools, logging, sys
np.seterr(invalid='ignore', divide='ignore')
# Runs ICON4Py's own NumPy functions (read from its git history, not copied) on the grid
# inputs foehn dumped (test `dump_for_icon4py_parity`) and compares with foehn's fields.
# Usage: python3 fields_interpolation_parity.py DUMP_DIR ICON4PY_GIT_DIR
DUMP = sys.argv[1] if len(sys.argv) > 1 else '/tmp/foehn-interp-parity'
REPO = sys.argv[2] if len(sys.argv) > 2 else '/work/.mirror/C2SM+icon4py/repo'
def src(path):
    s = subprocess.check_output(['git','-C',REPO,'show','HEAD:model/common/src/icon4py/model/common/'+path]).decode()
    s = re.sub(r'^from [^\n]* import \([^)]*\)\n', '', s, flags=re.M|re.S)
    s = re.sub(r'^(from|import) [^\n]*\n', '', s, flags=re.M)
    return 'from __future__ import annotations\n' + s
class Any_:
    def __getattr__(self, k): return None
class DA:
    NDArray = np.ndarray
    @staticmethod
    def array_namespace(x): return np
    @staticmethod
    def as_numpy(x): return np.asarray(x)
class GTX:
    int32 = np.int32
    @staticmethod
    def field_operator(f): return f
class TA: wpfloat = np.float64
class Exch:
    def exchange(self, *a, **k): pass
class Decomp:
    ExchangeRuntime = object; BLOCK = None
class GF:
    class GridFile: INVALID_INDEX = -1
class GT(enum.IntEnum):
    ICOSAHEDRON = 1; TORUS = 2
class IG: GeometryType = GT
def valid_e2c_neighbors(e2c):
    v0 = e2c[:,0] >= 0
    v1 = (e2c[:,1] >= 0) & (e2c[:,1] != e2c[:,0])
    safe = np.where(e2c < 0, np.maximum(e2c[:, :1], 0), e2c)
    return v0, v1, safe
class GU: valid_e2c_neighbors = staticmethod(valid_e2c_neighbors)
def cos_central_angle(*, lon_center, lat_center, lon, lat):
    return np.sin(lat_center)*np.sin(lat) + np.cos(lat_center)*np.cos(lat)*np.cos(lon-lon_center)
class DAN: cos_central_angle = staticmethod(cos_central_angle)
proj_ns = dict(np=np, data_alloc=DA, distance_array_ns=DAN)
exec(src('math/projection.py'), proj_ns)
class PR: gnomonic_proj = staticmethod(proj_ns['gnomonic_proj'])
def cpcn(x,y,z): return np.transpose(np.stack((x,y,z)))
ns = dict(np=np, data_alloc=DA, gtx=GTX, ta=TA, fa=Any_(), dims=Any_(), decomposition=Decomp, C2E=None, V2E=None,
          gridfile=GF, icon_grid=IG, grid_utils=GU, projection=PR, distance_array_ns=DAN, compute_primal_cart_normal=cpcn,
          __file__='x', where=np.where, functools=functools, math=math, logging=logging, Final=object)
exec(src('interpolation/interpolation_fields.py'), ns)
class Env:
    @staticmethod
    def flag_to_bool(n, d): return d
class CIO:
    @staticmethod
    def register_enum(c): return c
rns = dict(np=np, data_alloc=DA, gtx=GTX, ta=TA, dims=Any_(), icon_grid=IG, base_grid=Any_(), env=Env, config_io=CIO,
           astype=lambda x, t: float(x), enum=enum, math=math)
exec(src('interpolation/rbf_interpolation.py'), rns)

def load(tag):
    d = f'{DUMP}/{tag}/'
    st = np.fromfile(d+'starts.i32', dtype='<i4')
    nc, ne, nv = st[9], st[10], st[11]
    def f(n, shape=None):
        a = np.fromfile(d+n+'.f64', dtype='<f8')
        return a.reshape(shape) if shape else a
    def i(n, w):
        return np.fromfile(d+n+'.i32', dtype='<i4').astype(np.int64).reshape(-1, w)
    return d, st, nc, ne, nv, f, i

FAILED = []
def cmp(name, ours, ref, tol=1e-12):
    ours = np.asarray(ours).ravel(); ref = np.asarray(ref).ravel()
    scale = max(np.abs(ref).max(), 1e-300)
    err = np.abs(ours - ref).max() / scale
    print(f'  {name:16s} max|diff|/max|ref| = {err:.2e} {"OK" if err < tol else "DIFF"}')
    if not err < tol:
        FAILED.append(name)

for tag in ['r2b2', 'lam']:
    d, st, nc, ne, nv, f, i = load(tag)
    print(tag, nc, ne, nv, st)
    c2e, e2c, c2e2c, e2c2e, c2e2co = i('C2E',3), i('E2C',2), i('C2E2C',3), i('E2C2E',4), i('C2E2CO',4)
    v2e, v2c, e2v, c2e2c2e = i('V2E',6), i('V2C',6), i('E2V',2), i('C2E2C2E',9)
    ecd = f('edge_cell_distance', (ne,2)); evd = f('edge_vert_distance', (ne,2))
    own_e = np.ones(ne, bool); own_c = np.ones(nc, bool); own_v = np.ones(nv, bool)
    clin = ns['compute_c_lin_e'](ecd, f('inv_dual_edge_length'), own_e, st[2])
    cmp('c_lin_e', f('out_c_lin_e'), clin)
    gdiv = f('primal_edge_length')[c2e] * f('cell_edge_orientation',(nc,3)) / f('cell_area')[:,None]
    cmp('geofac_div', f('out_geofac_div'), gdiv)
    vmask = v2e >= 0
    grot = np.where(vmask, f('dual_edge_length')[np.where(vmask, v2e, 0)] * f('vertex_edge_orientation',(nv,6)) / f('dual_area')[:,None], 0)
    cmp('geofac_rot', f('out_geofac_rot'), grot)
    # the factory's connectivities have skip values; numpy indexing with -1 must not matter in the computed rows
    n2s = ns['compute_geofac_n2s'](dual_edge_length=f('dual_edge_length'), geofac_div=gdiv, c2e=c2e, e2c=e2c, c2e2c=c2e2c, horizontal_start=st[0])
    cmp('geofac_n2s', f('out_geofac_n2s'), n2s)
    gx, gy = ns['compute_geofac_grg'](primal_normal_cell_x=f('primal_normal_cell_x',(ne,2)), primal_normal_cell_y=f('primal_normal_cell_y',(ne,2)),
        owner_mask=own_c, geofac_div=gdiv, c_lin_e=clin, c2e=c2e, e2c=e2c, c2e2c=c2e2c, horizontal_start=st[0], exchange=Exch())
    cmp('geofac_grg_x', f('out_geofac_grg_x'), gx); cmp('geofac_grg_y', f('out_geofac_grg_y'), gy)
    grdiv = ns['compute_geofac_grdiv'](geofac_div=gdiv, inv_dual_edge_length=f('inv_dual_edge_length'), owner_mask=own_e, c2e=c2e, e2c=e2c, e2c2e=e2c2e, horizontal_start=st[2])
    cmp('geofac_grdiv', f('out_geofac_grdiv'), grdiv)
    ebln = ns['compute_e_bln_c_s'](c2e=c2e, cells_lat=f('cell_lat'), cells_lon=f('cell_lon'), edges_lat=f('edge_lat'), edges_lon=f('edge_lon'))
    cmp('e_bln_c_s', f('out_e_bln_c_s'), ebln)
    cba = ns['compute_mass_conserving_bilinear_cell_average_weight'](c2e2c0=c2e2co, lat=f('cell_lat'), lon=f('cell_lon'), cell_areas=f('cell_area'),
        cell_owner_mask=own_c, divergence_averaging_central_cell_weight=0.5, horizontal_start=st[0], horizontal_start_level_3=st[1], exchange=Exch())
    cmp('c_bln_avg', f('out_c_bln_avg'), cba, 1e-9)
    pcn = f('primal_cart', (ne,3))
    efa = ns['compute_e_flx_avg'](c_bln_avg=cba, geofac_div=gdiv, owner_mask=own_e, primal_cart_normal_x=pcn[:,0], primal_cart_normal_y=pcn[:,1],
        primal_cart_normal_z=pcn[:,2], e2c=e2c, c2e=c2e, c2e2c=c2e2c, e2c2e=e2c2e, horizontal_start_p3=st[3], horizontal_start_p4=st[4], exchange=Exch())
    cmp('e_flx_avg', f('out_e_flx_avg'), efa, 1e-9)
    caw = ns['compute_cells_aw_verts'](dual_area=f('dual_area'), edge_vert_length=evd, edge_cell_length=ecd, v2e=v2e, e2v=e2v, v2c=v2c, e2c=e2c, horizontal_start=st[5])
    cmp('cells_aw_verts', f('out_cells_aw_verts'), caw)
    px, py = ns['compute_pos_on_tplane_e_x_y'](grid_sphere_radius=6.371229e6, primal_normal_v1=f('primal_normal_x'), primal_normal_v2=f('primal_normal_y'),
        dual_normal_v1=f('dual_normal_x'), dual_normal_v2=f('dual_normal_y'), cells_lon=f('cell_lon'), cells_lat=f('cell_lat'),
        edges_lon=f('edge_lon'), edges_lat=f('edge_lat'), owner_mask=own_e, e2c=e2c, horizontal_start=0)
    cmp('pos_on_tplane_x', f('out_pos_on_tplane_e_x'), px)
    # y is round-off noise around 0 on both sides: compare with the size of x.
    print(f"  pos_on_tplane_y  max|diff|/max|x| = {np.abs(f('out_pos_on_tplane_e_y') - py.ravel()).max() / np.abs(px).max():.2e}")
    cx, ex, vx = f('cell_xyz',(nc,3)), f('edge_xyz',(ne,3)), f('vertex_xyz',(nv,3))
    lsq = ns['compute_lsq_coeffs'](cell_center_x=cx[:,0], cell_center_y=cx[:,1], cell_lat=f('cell_lat'), cell_lon=f('cell_lon'), c2e2c=c2e2c,
        cell_owner_mask=own_c, domain_length=0.0, domain_height=0.0, grid_sphere_radius=6.371229e6, lsq_dim_unk=2, lsq_dim_c=3, lsq_wgt_exp=2,
        start_idx=st[0], min_rlcell_int=nc, geometry_type=1, exchange=Exch())
    cmp('lsq_pseudoinv', f('out_lsq_pseudoinv'), lsq, 1e-12)
    common = dict(edge_center_x=ex[:,0], edge_center_y=ex[:,1], edge_center_z=ex[:,2], edge_normal_x=pcn[:,0], edge_normal_y=pcn[:,1], edge_normal_z=pcn[:,2],
                  geometry_type=1, domain_length=-1.0, domain_height=-1.0)
    se = f('out_rbf_vec_scale_e')[0]; sv = f('out_rbf_vec_scale_v')[0]; sc = f('out_rbf_vec_scale_c')[0]
    re_ = rns['compute_rbf_interpolation_coeffs_edge'](edge_lat=f('edge_lat'), edge_lon=f('edge_lon'), edge_dual_normal_u=f('dual_normal_x'), edge_dual_normal_v=f('dual_normal_y'),
        rbf_offset=e2c2e, rbf_kernel=3, scale_factor=se, horizontal_start=st[2], horizontal_end=st[7], **common)
    cmp('rbf_vec_coeff_e', f('out_rbf_vec_coeff_e'), re_, 1e-6)
    v1, v2 = rns['compute_rbf_interpolation_coeffs_vertex'](vertex_lat=f('vertex_lat'), vertex_lon=f('vertex_lon'), vertex_x=vx[:,0], vertex_y=vx[:,1], vertex_z=vx[:,2],
        rbf_offset=v2e, rbf_kernel=1, scale_factor=sv, horizontal_start=st[5], horizontal_end=st[8], **common)
    cmp('rbf_vec_coeff_v1', f('out_rbf_vec_coeff_v1'), v1, 1e-6); cmp('rbf_vec_coeff_v2', f('out_rbf_vec_coeff_v2'), v2, 1e-6)
    c1, c2 = rns['compute_rbf_interpolation_coeffs_cell'](cell_center_lat=f('cell_lat'), cell_center_lon=f('cell_lon'), cell_center_x=cx[:,0], cell_center_y=cx[:,1], cell_center_z=cx[:,2],
        rbf_offset=c2e2c2e, rbf_kernel=1, scale_factor=sc, horizontal_start=st[0], horizontal_end=st[6], **common)
    cmp('rbf_vec_coeff_c1', f('out_rbf_vec_coeff_c1'), c1, 1e-6); cmp('rbf_vec_coeff_c2', f('out_rbf_vec_coeff_c2'), c2, 1e-6)

if FAILED:
    sys.exit(f'differences in {FAILED}')
