//! IR → C source. One C function per stencil evaluates the stencil's root expression
//! at every point of a horizontal chunk and the stencil's level range; expressions are
//! emitted recursively with the evaluation point (horizontal index, level, neighbour
//! slot) as context, so shifts, reductions and scans lower to plain loops and loads.
//!
//! The C ABI (mirrored by [`super::cpu`]): every stencil function is
//! `void NAME(const foehn_ctx* ctx, int64_t h0, int64_t h1, int64_t k0, int64_t k1)`,
//! and `foehn_ctx` carries per-field read/write pointers and strides, the neighbour
//! tables (indexed like `Connectivity::ALL`), runtime scalars, resolved region bounds
//! and an error word (1 + the failing check's site number).

use crate::ir::{
    BinaryOp, Bound, DType, ExprId, FieldId, IndexDim, Node, Program, ReduceOp, Region, ScanDir,
    Stencil, Type, UnaryOp,
};
use foehn_grid::{Connectivity, Location};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

mod expr;
mod ops;

use ops::{cast, conn_index, ctype, literal, storage_type};

/// The generated source and what the runtime needs to call it.
#[derive(Debug, Clone, PartialEq)]
pub struct CProgram {
    /// The complete C translation unit.
    pub source: String,
    /// One entry per stencil, in program order.
    pub stencils: Vec<CStencil>,
    /// Region bounds the code reads from `ctx->bounds`, in index order.
    pub bounds: Vec<(IndexDim, Bound)>,
    /// Messages of the run-time checks; the error word is 1 + an index into this.
    pub sites: Vec<String>,
}

impl CProgram {
    /// The region bounds resolved on `grid` with `nlev` levels, in `ctx->bounds` order.
    pub fn resolve_bounds(
        &self,
        program: &Program,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> crate::Result<Vec<i64>> {
        self.bounds
            .iter()
            .map(|(dim, b)| b.resolve(*dim, grid, nlev))
            .collect::<std::result::Result<_, _>>()
            .map_err(|message| crate::Error::Runtime {
                program: program.name.clone(),
                stencil: "-".into(),
                message,
            })
    }
}

/// Calling information of one stencil function.
#[derive(Debug, Clone, PartialEq)]
pub struct CStencil {
    /// The C symbol.
    pub symbol: String,
    /// Fields the stencil reads.
    pub reads: BTreeSet<FieldId>,
    /// Output fields the stencil also reads: the runtime passes a snapshot taken
    /// before the stencil as their read pointer, so every point sees the old values.
    pub snapshot: BTreeSet<FieldId>,
    /// True when the stencil computes scan columns: one CUDA thread per horizontal point
    /// (walking the levels) instead of one per (point, level).
    pub per_column: bool,
    /// Levels one CUDA thread walks in this stencil (1 without k-blocking). Stencils
    /// with data-dependent vertical offsets are not k-blocked: measured slower.
    pub k_block: usize,
}

/// Errors: IR constructs this generator does not lower (yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("code generation for program `{program}`, stencil `{stencil}`: {message}")]
pub struct CodegenError {
    /// Program name.
    pub program: String,
    /// Stencil name.
    pub stencil: String,
    /// What is not supported.
    pub message: String,
}

/// What the generated source is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Plain C11: one function per stencil over a horizontal chunk and the level range.
    C,
    /// CUDA C++ for NVRTC: one kernel per stencil, a thread per (horizontal point, level),
    /// or per horizontal point for stencils with scans (columns of at most `max_levels`).
    Cuda {
        /// Longest vertical range a scan column may have (`nlev + 1` for the caller's grid).
        max_levels: usize,
        /// Levels one thread walks (k-blocking; 1: a thread per level). Within a block
        /// the neighbour indices and horizontal-only fields are loop-invariant, so they
        /// are loaded once per thread.
        k_block: usize,
        /// 32-bit index arithmetic (every field must have fewer than 2³¹ elements).
        idx32: bool,
    },
}

const C_PRELUDE: &str = r#"#include <stdint.h>
#include <math.h>

#define FOEHN_RESTRICT restrict
#define FOEHN_FN static inline
typedef int64_t foehn_idx;
typedef union { double f64; float f32; int32_t i32; uint8_t b; } foehn_scalar;
typedef struct {
    const void* const* rd;
    void* const* wr;
    const int64_t* sh;
    const int64_t* sj;
    const int64_t* sk;
    const int64_t* nk;
    const int32_t* const* tab;
    const foehn_scalar* sc;
    const int64_t* bounds;
    int32_t* err;
} foehn_ctx;

#define FOEHN_ERR(site) __atomic_store_n(ctx->err, (site) + 1, __ATOMIC_RELAXED)
"#;

const CUDA_PRELUDE: &str = r#"typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;
#define INT32_MAX 2147483647
#define INT32_MIN (-2147483647 - 1)
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define FOEHN_RESTRICT __restrict__
#define FOEHN_FN __device__ static inline
#ifdef FOEHN_IDX32
typedef int foehn_idx;
#else
typedef long long foehn_idx;
#endif
typedef union { double f64; float f32; int32_t i32; uint8_t b; } foehn_scalar;
#define FOEHN_ERR(site) atomicExch(ctx->err, (site) + 1)
"#;

const HELPERS: &str = r#"FOEHN_FN int32_t foehn_f2i(double x) {
    if (x != x) return 0;
    if (x >= 2147483647.0) return INT32_MAX;
    if (x <= -2147483648.0) return INT32_MIN;
    return (int32_t)x;
}
FOEHN_FN int32_t foehn_imin(int32_t a, int32_t b) { return a < b ? a : b; }
FOEHN_FN int32_t foehn_imax(int32_t a, int32_t b) { return a > b ? a : b; }
FOEHN_FN int32_t foehn_wrap(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
"#;

/// The CUDA argument block: every member 8 bytes, arrays sized for the program.
fn cuda_ctx(prog: &Program, n_bounds: usize) -> String {
    let nf = prog.fields.len().max(1);
    let ns = prog.scalars.len().max(1);
    let nb = n_bounds.max(1);
    format!(
        "typedef struct {{\n    const void* rd[{nf}];\n    void* wr[{nf}];\n    int64_t sh[{nf}];\n    \
         int64_t sj[{nf}];\n    int64_t sk[{nf}];\n    int64_t nk[{nf}];\n    const int32_t* tab[14];\n    \
         foehn_scalar sc[{ns}];\n    int64_t bounds[{nb}];\n    int32_t* err;\n}} foehn_ctx;\n"
    )
}

/// Generates the C translation unit for one specialised program.
pub fn generate(prog: &Program) -> Result<CProgram, CodegenError> {
    generate_for(prog, Target::C)
}

/// Generates source for one specialised program and target.
pub fn generate_for(prog: &Program, target: Target) -> Result<CProgram, CodegenError> {
    let mut functions = String::new();
    let mut shared = Shared::default();
    let mut stencils = Vec::new();
    for (i, st) in prog.stencils.iter().enumerate() {
        let symbol = format!("foehn_stencil_{i}");
        let mut g = Gen::new(prog, st, &mut shared, target);
        let body = g.stencil_body()?;
        let reads = g.reads.clone();
        let header = g.prologue();
        let snapshot: BTreeSet<FieldId> = st
            .outputs
            .iter()
            .copied()
            .filter(|o| reads.contains(o))
            .collect();
        writeln!(functions, "\n/* stencil `{}` */", st.name).unwrap();
        match target {
            Target::C => writeln!(
                functions,
                "void {symbol}(const foehn_ctx* ctx, int64_t h0, int64_t h1, int64_t k0, int64_t k1) {{"
            ),
            Target::Cuda { .. } => writeln!(
                functions,
                "extern \"C\" __global__ void {symbol}(const foehn_ctx ctx_v, int64_t h0, int64_t h1, int64_t k0, int64_t k1) {{\n    const foehn_ctx* ctx = &ctx_v;"
            ),
        }
        .unwrap();
        functions.push_str(&header);
        functions.push_str(&body);
        functions.push_str("}\n");
        let per_column = prog
            .reachable(st.root)
            .iter()
            .any(|&id| matches!(prog.node(id), Node::Scan { .. }));
        let k_block = stencil_k_block(prog, st, target);
        stencils.push(CStencil {
            symbol,
            reads,
            snapshot,
            per_column,
            k_block,
        });
    }
    let mut source = match target {
        Target::C => C_PRELUDE.to_string(),
        Target::Cuda {
            max_levels, idx32, ..
        } => {
            format!(
                "{}{CUDA_PRELUDE}#define FOEHN_MAXK {}\n{}",
                if idx32 { "#define FOEHN_IDX32\n" } else { "" },
                max_levels.max(1),
                cuda_ctx(prog, shared.bounds.len())
            )
        }
    };
    source.push_str(HELPERS);
    source.push_str(&functions);
    Ok(CProgram {
        source,
        stencils,
        bounds: shared.bounds,
        sites: shared.sites,
    })
}

/// The k-block of a stencil: the target's, except 1 for the C target, for stencils
/// without levels and for stencils with data-dependent vertical offsets.
fn stencil_k_block(prog: &Program, st: &Stencil, target: Target) -> usize {
    let Target::Cuda { k_block, .. } = target else {
        return 1;
    };
    let data_dependent = prog
        .reachable(st.root)
        .iter()
        .any(|&id| matches!(prog.node(id), Node::KOffset(..)));
    if st.vertical.is_none() || data_dependent {
        1
    } else {
        k_block.max(1)
    }
}

/// State shared by all stencils of a program.
#[derive(Default)]
struct Shared {
    bounds: Vec<(IndexDim, Bound)>,
    sites: Vec<String>,
}

impl Shared {
    fn bound(&mut self, dim: IndexDim, b: Bound) -> usize {
        if let Some(i) = self.bounds.iter().position(|x| *x == (dim, b)) {
            return i;
        }
        self.bounds.push((dim, b));
        self.bounds.len() - 1
    }

    fn site(&mut self, msg: String) -> usize {
        self.sites.push(msg);
        self.sites.len() - 1
    }
}

/// A vertical position: `base + off` (`base` a C variable).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct KPos {
    base: String,
    off: i64,
}

impl KPos {
    fn expr(&self) -> String {
        match self.off {
            0 => self.base.clone(),
            o if o > 0 => format!("({} + {o})", self.base),
            o => format!("({} - {})", self.base, -o),
        }
    }
}

/// The point an expression is evaluated at.
#[derive(Clone)]
struct Pt {
    h: String,
    loc: Option<Location>,
    k: KPos,
    j: Option<String>,
    /// Inside a reduction over `conn` at (h, j): the already loaded, valid neighbour index.
    guard: Option<(Connectivity, String, String, String)>,
    /// True at the stencil's own (h, k) (scan columns can be read there).
    own_h: bool,
}

type Key = (u32, String, KPos, Option<String>);

/// A C value: a scalar expression/variable or a tuple.
#[derive(Clone, Debug)]
enum Val {
    S(String),
    T(Vec<Val>),
}

impl Val {
    fn s(&self) -> &str {
        match self {
            Val::S(s) => s,
            Val::T(_) => "/*tuple*/0",
        }
    }
}

struct ScanCtx {
    /// Column arrays, one per carry.
    columns: Vec<String>,
    /// Carry variables while the body is emitted.
    carries: Vec<String>,
    /// Whether the body is being emitted now.
    active: bool,
}

struct Gen<'a> {
    prog: &'a Program,
    st: &'a Stencil,
    shared: &'a mut Shared,
    out: String,
    indent: usize,
    counter: usize,
    scopes: Vec<BTreeMap<Key, Val>>,
    reads: BTreeSet<FieldId>,
    writes: BTreeSet<FieldId>,
    tables: BTreeSet<Connectivity>,
    scalars: BTreeSet<u32>,
    bounds_used: BTreeSet<usize>,
    scans: BTreeMap<u32, ScanCtx>,
    target: Target,
}

impl<'a> Gen<'a> {
    fn new(prog: &'a Program, st: &'a Stencil, shared: &'a mut Shared, target: Target) -> Self {
        Gen {
            prog,
            st,
            shared,
            out: String::new(),
            indent: 1,
            counter: 0,
            scopes: vec![BTreeMap::new()],
            reads: BTreeSet::new(),
            writes: BTreeSet::new(),
            tables: BTreeSet::new(),
            scalars: BTreeSet::new(),
            bounds_used: BTreeSet::new(),
            scans: BTreeMap::new(),
            target,
        }
    }

    fn err(&self, message: impl Into<String>) -> CodegenError {
        CodegenError {
            program: self.prog.name.clone(),
            stencil: self.st.name.clone(),
            message: message.into(),
        }
    }

    fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.counter += 1;
        format!("{stem}{}", self.counter)
    }

    fn open(&mut self, head: impl AsRef<str>) {
        self.line(format!("{} {{", head.as_ref()));
        self.indent += 1;
        self.scopes.push(BTreeMap::new());
    }

    fn close(&mut self) {
        self.scopes.pop();
        self.indent -= 1;
        self.line("}");
    }

    fn cached(&self, key: &Key) -> Option<Val> {
        self.scopes.iter().rev().find_map(|s| s.get(key).cloned())
    }

    fn dtype(&self, id: ExprId) -> DType {
        match self.prog.ty(id) {
            Type::Field(f) => f.dtype,
            Type::Tuple(_) => DType::F64,
        }
    }

    fn site(&mut self, what: &str) -> usize {
        let msg = format!(
            "program `{}`, stencil `{}`: {what}",
            self.prog.name, self.st.name
        );
        self.shared.site(msg)
    }

    /// Declarations at the top of the function for everything the body uses.
    fn prologue(&self) -> String {
        let mut s = String::new();
        for &f in self.reads.union(&self.writes) {
            let d = self.prog.field(f);
            let t = storage_type(d.ty.dtype);
            let i = f.0;
            if self.reads.contains(&f) {
                writeln!(
                    s,
                    "    const {t}* FOEHN_RESTRICT RD{i} = (const {t}*)ctx->rd[{i}];"
                )
                .unwrap();
            }
            if self.writes.contains(&f) {
                writeln!(s, "    {t}* FOEHN_RESTRICT WR{i} = ({t}*)ctx->wr[{i}];").unwrap();
            }
            writeln!(
                s,
                "    const foehn_idx SH{i} = ctx->sh[{i}], SJ{i} = ctx->sj[{i}], SK{i} = ctx->sk[{i}], NK{i} = ctx->nk[{i}];"
            )
            .unwrap();
            writeln!(s, "    (void)SH{i}; (void)SJ{i}; (void)SK{i}; (void)NK{i};").unwrap();
        }
        for &c in &self.tables {
            writeln!(
                s,
                "    const int32_t* FOEHN_RESTRICT T_{} = ctx->tab[{}];",
                c.name(),
                conn_index(c)
            )
            .unwrap();
        }
        for &sc in &self.scalars {
            let d = &self.prog.scalars[sc as usize];
            let member = match d.dtype {
                DType::F64 => "f64",
                DType::F32 => "f32",
                DType::I32 => "i32",
                DType::Bool => "b",
            };
            writeln!(
                s,
                "    const {} S{sc} = ctx->sc[{sc}].{member};",
                ctype(d.dtype)
            )
            .unwrap();
        }
        for &b in &self.bounds_used {
            writeln!(s, "    const foehn_idx B{b} = ctx->bounds[{b}];").unwrap();
        }
        s
    }

    /// The loop nest of the stencil.
    fn stencil_body(&mut self) -> Result<String, CodegenError> {
        let st = self.st;
        let has_k = st.vertical.is_some();
        let scans: Vec<ExprId> = self
            .prog
            .reachable(st.root)
            .into_iter()
            .filter(|&id| matches!(self.prog.node(id), Node::Scan { .. }))
            .collect();
        let root_pt = |k: &str| Pt {
            h: "h".into(),
            loc: st.location,
            k: KPos {
                base: k.into(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: true,
        };
        let cuda = matches!(self.target, Target::Cuda { .. });
        if cuda {
            self.line("const foehn_idx h = (foehn_idx)h0 + (foehn_idx)(blockIdx.x * blockDim.x + threadIdx.x);");
            self.line("if (h >= h1) return;");
        }
        if scans.is_empty() {
            // C: vertical outer, horizontal inner (unit-stride horizontal accesses).
            // CUDA: a thread per (h, k), horizontal on x for coalescing.
            match (cuda, has_k) {
                (false, true) => self.open("for (foehn_idx k = k0; k < k1; ++k)"),
                (true, true) => {
                    let kb = stencil_k_block(self.prog, st, self.target);
                    if kb == 1 {
                        self.line("const foehn_idx k = (foehn_idx)k0 + (foehn_idx)blockIdx.y; if (k >= k1) return;")
                    } else {
                        self.line(format!(
                            "const foehn_idx kb0 = (foehn_idx)k0 + (foehn_idx)blockIdx.y * {kb};"
                        ));
                        self.line(format!(
                            "const foehn_idx kb1 = kb0 + {kb} < k1 ? kb0 + {kb} : (foehn_idx)k1;"
                        ));
                        self.line("#pragma unroll 4");
                        self.open("for (foehn_idx k = kb0; k < kb1; ++k)");
                    }
                }
                (_, false) => self.line("const foehn_idx k = 0; (void)k0; (void)k1;"),
            }
            if !cuda {
                self.open("for (foehn_idx h = h0; h < h1; ++h)");
            }
            let v = self.emit(st.root, &root_pt("k"))?;
            self.store(&v)?;
            let k_loop_in_thread = stencil_k_block(self.prog, st, self.target) > 1;
            if !cuda {
                self.close();
                if has_k {
                    self.close();
                }
            } else if has_k && k_loop_in_thread {
                self.close();
            }
        } else {
            // A column per horizontal point: compute every scan's column, then the outputs.
            if !cuda {
                self.open("for (foehn_idx h = h0; h < h1; ++h)");
            }
            for &sid in &scans {
                self.emit_scan_column(sid)?;
            }
            if has_k {
                self.open("for (foehn_idx k = k0; k < k1; ++k)");
            } else {
                self.line("const foehn_idx k = 0;");
            }
            let v = self.emit(st.root, &root_pt("k"))?;
            self.store(&v)?;
            if has_k {
                self.close();
            }
            if !cuda {
                self.close();
            }
        }
        Ok(std::mem::take(&mut self.out))
    }

    fn store(&mut self, v: &Val) -> Result<(), CodegenError> {
        let outs = self.st.outputs.clone();
        let vals: Vec<Val> = match (v, outs.len()) {
            (Val::S(_), 1) => vec![v.clone()],
            (Val::T(t), n) if t.len() == n => t.clone(),
            _ => return Err(self.err("output arity does not match the root expression")),
        };
        for (f, val) in outs.iter().zip(vals) {
            self.writes.insert(*f);
            let d = self.prog.field(*f);
            let i = f.0;
            let kpart = if d.ty.dims.vertical.is_some() {
                format!(" + k*SK{i}")
            } else {
                String::new()
            };
            let value = if d.ty.dtype == DType::Bool {
                format!("(uint8_t)({} != 0)", val.s())
            } else {
                val.s().to_string()
            };
            self.line(format!("WR{i}[h*SH{i}{kpart}] = {value};"));
        }
        Ok(())
    }

    /// Declares and fills the column arrays of a scan at the current `h`.
    fn emit_scan_column(&mut self, sid: ExprId) -> Result<(), CodegenError> {
        let Node::Scan {
            id,
            dir,
            init,
            body,
            ..
        } = self.prog.node(sid).clone()
        else {
            unreachable!()
        };
        let n = body.len();
        let pt0 = Pt {
            h: "h".into(),
            loc: self.st.location,
            k: KPos {
                base: "k0".into(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: true,
        };
        let mut columns = Vec::new();
        let mut carries = Vec::new();
        for i in 0..n {
            let t = ctype(self.dtype(body[i]));
            let col = format!("COL{id}_{i}");
            let c = format!("C{id}_{i}");
            match self.target {
                Target::C => self.line(format!("{t} {col}[(k1 - k0) > 0 ? (k1 - k0) : 1];")),
                Target::Cuda { .. } => self.line(format!("{t} {col}[FOEHN_MAXK];")),
            }
            let v = self.emit(init[i], &pt0)?;
            self.line(format!("{t} {c} = {};", v.s()));
            columns.push(col);
            carries.push(c);
        }
        self.scans.insert(
            id,
            ScanCtx {
                columns: columns.clone(),
                carries: carries.clone(),
                active: true,
            },
        );
        let head = match dir {
            ScanDir::Forward => "for (foehn_idx kc = k0; kc < k1; ++kc)",
            ScanDir::Backward => "for (foehn_idx kc = k1 - 1; kc >= k0; --kc)",
        };
        self.open(head);
        let pt = Pt {
            k: KPos {
                base: "kc".into(),
                off: 0,
            },
            ..pt0
        };
        let mut next = Vec::new();
        for &b in &body {
            let v = self.emit(b, &pt)?;
            next.push(v.s().to_string());
        }
        for i in 0..n {
            self.line(format!("{} = {};", carries[i], next[i]));
            self.line(format!("{}[kc - k0] = {};", columns[i], carries[i]));
        }
        self.close();
        if let Some(s) = self.scans.get_mut(&id) {
            s.active = false;
        }
        Ok(())
    }
}
