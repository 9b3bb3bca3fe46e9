//! Declarations at the top of a kernel function: field pointers, strides and level
//! counts, column arrays of a column kernel's local temporaries, neighbour tables,
//! scalars and region bounds.

use super::*;

impl Gen<'_> {
    /// The declarations of field `f`'s strides and level count (`SH`, `SJ`, `SK`,
    /// `NK`): constants with fixed sizes, else read from the argument block.
    fn strides(&self, f: FieldId) -> String {
        let mut s = String::new();
        let d = self.prog.field(f);
        let i = f.0;
        match self.fixed {
            Some(fx) => {
                let shape = crate::ir::layout::grid_shape(fx.grid, fx.nlev, d.ty.dims);
                let (sh, sj, sk) = if fx.level_fastest {
                    crate::ir::layout::strides_level_fastest(d.ty.dims, &shape)
                } else {
                    crate::ir::layout::strides_of(d.ty.dims, &shape)
                };
                let nk = crate::ir::layout::vertical_extent_of(d.ty.dims, &shape);
                writeln!(
                    s,
                    "    const foehn_idx SH{i} = {sh}, SJ{i} = {sj}, SK{i} = {sk}, NK{i} = {nk};"
                )
                .unwrap();
            }
            None => writeln!(
                s,
                "    const foehn_idx SH{i} = ctx->sh[{i}], SJ{i} = ctx->sj[{i}], SK{i} = ctx->sk[{i}], NK{i} = ctx->nk[{i}];"
            )
            .unwrap(),
        }
        writeln!(s, "    (void)SH{i}; (void)SJ{i}; (void)SK{i}; (void)NK{i};").unwrap();
        s
    }

    /// Declarations at the top of the function for everything the body uses.
    pub(super) fn prologue(&self, snapshot: &BTreeSet<FieldId>) -> Result<String, CodegenError> {
        let mut s = String::new();
        for &f in self.reads.union(&self.writes) {
            let d = self.prog.field(f);
            let t = storage_type(d.ty.dtype);
            let i = f.0;
            // A field read and written in place (at the same point; not from a snapshot)
            // is accessed through both pointers: they must not be `restrict`.
            let both =
                self.reads.contains(&f) && self.writes.contains(&f) && !snapshot.contains(&f);
            let restrict = if both { "" } else { " FOEHN_RESTRICT" };
            if self.local.contains(&f) {
                // A per-thread column indexed by level on the GPU (the kernel checks
                // `NK <= FOEHN_MAXK`); in C the columns of a block of points.
                let size = match self.target {
                    Target::C => format!("{} * (NK{i} > 0 ? NK{i} : 1)", body::COLUMN_BLOCK),
                    Target::Cuda => "FOEHN_MAXK".into(),
                };
                s.push_str(&self.strides(f));
                if self.warp_column {
                    // A column per warp in shared memory (ADR 0032).
                    for line in super::warp::shared_column(t, &format!("LT{i}"), self.warp_lanes) {
                        writeln!(s, "    {line}").unwrap();
                    }
                } else {
                    writeln!(s, "    {t} LT{i}[{size}];").unwrap();
                }
                continue;
            }
            if self.reads.contains(&f) {
                writeln!(
                    s,
                    "    const {t}*{restrict} RD{i} = (const {t}*)ctx->rd[{i}];"
                )
                .unwrap();
            }
            if self.writes.contains(&f) {
                writeln!(s, "    {t}*{restrict} WR{i} = ({t}*)ctx->wr[{i}];").unwrap();
            }
            s.push_str(&self.strides(f));
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
            match self.fixed {
                Some(fx) => {
                    let (dim, bound) = self.shared.bounds[b];
                    let v = bound
                        .resolve(dim, fx.grid, fx.nlev)
                        .map_err(|m| self.err(m))?;
                    writeln!(s, "    const foehn_idx B{b} = {v};").unwrap()
                }
                None => writeln!(s, "    const foehn_idx B{b} = ctx->bounds[{b}];").unwrap(),
            }
        }
        Ok(s)
    }
}
