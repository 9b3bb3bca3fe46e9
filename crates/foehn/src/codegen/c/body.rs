//! Loop nests: a kernel's points (a thread per point on the GPU, loops on the CPU),
//! the stencils computed at each point (guarded by their domains when fused; a member
//! whose fixed domain lies inside another's is nested in that guard and reuses what it
//! computed, ADR 0012), stores, and scan columns.

use super::*;

impl<'a> Gen<'a> {
    /// The loop nest of a kernel computing `members` (one stencil, or several fused).
    pub(super) fn kernel_body(&mut self, members: &[&'a Stencil]) -> Result<String, CodegenError> {
        let st = self.st;
        let has_k = st.vertical.is_some();
        let scans = self.prog.scans(st.root);
        let cuda = matches!(self.target, Target::Cuda);
        let level_fastest = cuda
            && has_k
            && !members.iter().any(|m| self.prog.has_scan(m.root))
            && self.fixed.is_some_and(|f| f.level_fastest);
        if self.warp_column {
            // A warp per column (ADR 0032): consecutive threads on one column's levels.
            self.line("const unsigned int T = blockIdx.x * blockDim.x + threadIdx.x;");
            let lanes = self.warp_lanes;
            self.line(format!(
                "const foehn_idx h = (foehn_idx)h0 + (foehn_idx)(T / {lanes});"
            ));
            self.line(format!("const unsigned int lane = T % {lanes};"));
            if lanes < 32 {
                // The lanes of this column, for its barriers (ADR 0032).
                self.line(format!(
                    "const unsigned int FOEHN_COLUMN_LANES = 0x{:x}u << ((threadIdx.x & 31u) & ~{}u);",
                    (1u64 << lanes) - 1,
                    lanes - 1
                ));
            }
            self.line("if (h >= h1) return;");
        } else if level_fastest {
            // A thread per level, a point's levels on consecutive threads (the fields'
            // columns are contiguous): the grid's blocks in one dimension.
            self.line("const unsigned int NKR = (unsigned int)((foehn_idx)k1 - (foehn_idx)k0);");
            self.line("const unsigned int T = blockIdx.x * blockDim.x + threadIdx.x;");
            self.line("const foehn_idx h = (foehn_idx)h0 + (foehn_idx)(T / NKR);");
            self.line("const foehn_idx k = (foehn_idx)k0 + (foehn_idx)(T % NKR);");
            self.line("if (h >= h1) return;");
        } else if cuda {
            if self.k_major {
                // k-major block order: consecutive blocks walk the level blocks of one
                // horizontal block, so 2-D fields and neighbours stay in L2 meanwhile.
                let kb = self.k_block;
                self.line(format!(
                    "const unsigned int NKB = (unsigned int)(((foehn_idx)k1 - (foehn_idx)k0 + {}) / {kb});",
                    kb - 1
                ));
                self.line("const unsigned int KB = blockIdx.x % NKB, HB = blockIdx.x / NKB;");
            } else {
                self.line("const unsigned int KB = blockIdx.y, HB = blockIdx.x; (void)KB;");
            }
            self.line(
                "const foehn_idx h = (foehn_idx)h0 + (foehn_idx)(HB * blockDim.x + threadIdx.x);",
            );
            // A staging kernel returns after its block has filled the tiles.
            if self.stage.is_none() {
                self.line("if (h >= h1) return;");
            }
        }
        if members.iter().any(|m| self.prog.has_scan(m.root)) {
            self.check_local_columns();
            if self.warp_column {
                self.column_warp(members)?;
            } else if members.len() == 1 {
                self.column_body(&scans)?;
            } else if let Some(plan) = self.lockstep.clone() {
                self.column_lockstep(members, &plan)?;
            } else {
                self.column_members(members)?;
            }
            return Ok(std::mem::take(&mut self.out));
        }
        // C: vertical outer, horizontal inner (unit-stride horizontal accesses).
        // CUDA: a thread per (h, k), horizontal on x for coalescing; with k-blocking a
        // thread walks `k_block` levels.
        let mut open = 0;
        // Where the preamble of hoisted loads goes, and its indentation.
        let mut preamble_at = None;
        match (cuda, has_k) {
            (false, true) => {
                self.open("for (foehn_idx k = k0; k < k1; ++k)");
                open += 1;
            }
            (true, true) if level_fastest => {}
            (true, true) => {
                let kb = self.k_block;
                if kb == 1 && self.stage.is_none() {
                    self.line(
                        "const foehn_idx k = (foehn_idx)k0 + (foehn_idx)KB; if (k >= k1) return;",
                    )
                } else {
                    self.line(format!(
                        "const foehn_idx kb0 = (foehn_idx)k0 + (foehn_idx)KB * {kb};"
                    ));
                    self.line(format!(
                        "const foehn_idx kb1 = kb0 + {kb} < k1 ? kb0 + {kb} : (foehn_idx)k1;"
                    ));
                    if self.stage.is_some() {
                        self.fill_tiles()?;
                        self.line("if (h >= h1) return;");
                    }
                    if self.hoist_loads {
                        preamble_at = Some((self.out.len(), self.indent));
                        self.hoist = Some(hoist::Hoist::new());
                    }
                    self.line(format!("#pragma unroll {}", self.unroll));
                    self.open("for (foehn_idx k = kb0; k < kb1; ++k)");
                    open += 1;
                }
            }
            (_, false) => self.line("const foehn_idx k = 0; (void)k0; (void)k1;"),
        }
        if !cuda {
            self.open("for (foehn_idx h = h0; h < h1; ++h)");
            open += 1;
        }
        if members.len() == 1 {
            self.point(st)?;
        } else {
            self.fused_members(members, has_k)?;
        }
        for _ in 0..open {
            self.close();
        }
        if let (Some((at, indent)), Some(h)) = (preamble_at, self.hoist.take()) {
            let pad = "    ".repeat(indent);
            let text: String = h.lines().iter().map(|l| format!("{pad}{l}\n")).collect();
            self.out.insert_str(at, &text);
        }
        Ok(std::mem::take(&mut self.out))
    }

    /// The members of a fused kernel at the current point, each under the guard of its
    /// domain. With domains fixed at compile time, a member whose domain lies inside the
    /// previous one's is emitted inside that guard (the same guard is not repeated), so
    /// the values the outer member computed at the point are reused, not recomputed
    /// ([`member_order`]).
    fn fused_members(&mut self, members: &[&'a Stencil], has_k: bool) -> Result<(), CodegenError> {
        let st = self.st;
        let domains: Option<Vec<[i64; 4]>> = self.fixed_domains.as_ref().map(|d| {
            (0..members.len())
                .map(|m| [d[4 * m], d[4 * m + 1], d[4 * m + 2], d[4 * m + 3]])
                .collect()
        });
        let order = match &domains {
            Some(d) => member_order(self.prog, members, d),
            None => (0..members.len()).collect(),
        };
        let mut open: Vec<[i64; 4]> = Vec::new();
        for m in order {
            let member = members[m];
            self.st = member;
            let inner = domains.as_ref().map(|d| d[m]);
            // Close the guards that do not contain this member's domain.
            while let (Some(top), Some(g)) = (open.last(), inner) {
                if contains(top, &g) {
                    break;
                }
                open.pop();
                self.close();
            }
            self.line(format!("/* stencil `{}` */", member.name));
            if inner.is_none() || open.last() != inner.as_ref() {
                let d = |i: usize| self.dom_bound(4 * m + i);
                let mut guard = format!("if (h >= {} && h < {}", d(0), d(1));
                if has_k {
                    write!(guard, " && k >= {} && k < {}", d(2), d(3)).unwrap();
                }
                self.open(format!("{guard})"));
                open.push(inner.unwrap_or([0; 4]));
            }
            self.point(member)?;
            if inner.is_none() {
                open.pop();
                self.close();
            }
        }
        for _ in open {
            self.close();
        }
        self.st = st;
        Ok(())
    }

    /// Member domain bound `i` of a fused kernel: a constant when sizes are fixed at
    /// compile time, else read from the kernel's argument block.
    pub(super) fn dom_bound(&self, i: usize) -> String {
        match &self.fixed_domains {
            Some(d) => d[i].to_string(),
            None => format!("ctx->dom[{i}]"),
        }
    }

    /// Evaluates the stencil at the current point `(h, k)` and stores its outputs.
    pub(super) fn point(&mut self, st: &'a Stencil) -> Result<(), CodegenError> {
        let pt = Pt {
            h: "h".into(),
            loc: st.location,
            k: KPos {
                base: "k".into(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: true,
        };
        let v = self.emit(st.root, &pt)?;
        self.store(&v)
    }

    /// A stencil with scans: per horizontal point, every scan's column, then the outputs.
    fn column_body(&mut self, scans: &[ExprId]) -> Result<(), CodegenError> {
        let st = self.st;
        let cuda = matches!(self.target, Target::Cuda);
        if !cuda {
            self.open("for (foehn_idx h = h0; h < h1; ++h)");
        }
        // The outputs join the last scan's loop when they read its result only at their
        // own level: that column is then never stored (a per-thread array on the GPU,
        // local memory the size of the column).
        let tail = scans
            .last()
            .copied()
            .filter(|&last| self.prog.outputs_join_scan(st, last));
        for &sid in scans {
            self.emit_scan_column(sid, tail == Some(sid))?;
        }
        // Otherwise they follow the scans, level by level.
        if tail.is_none() {
            if st.vertical.is_some() {
                self.open("for (foehn_idx k = k0; k < k1; ++k)");
                self.point(st)?;
                self.close();
            } else {
                self.line("const foehn_idx k = 0;");
                self.point(st)?;
            }
        }
        if !cuda {
            self.close();
        }
        Ok(())
    }

    /// A column kernel of several members: each member in program order over its own
    /// levels (its scans' columns first, then its outputs level by level), so each
    /// member sees what the earlier ones left in its column (ADR 0019). On the GPU a
    /// thread runs every member at its point, under the guard of the member's points;
    /// in C each block of [`COLUMN_BLOCK`] points runs a member on all its columns
    /// before the next one (levels outer for members without scans: unit-stride loads),
    /// which computes the same because no dependency leaves a column.
    fn column_members(&mut self, members: &[&'a Stencil]) -> Result<(), CodegenError> {
        let st = self.st;
        let cuda = matches!(self.target, Target::Cuda);
        if !cuda {
            self.open_column_blocks();
        }
        for (m, &member) in members.iter().enumerate() {
            self.st = member;
            self.line(format!("/* stencil `{}` */", member.name));
            let [d0, d1, d2, d3] = [0, 1, 2, 3].map(|i| self.dom_bound(4 * m + i));
            let scans = self.prog.scans(member.root);
            let has_k = member.vertical.is_some();
            if !has_k && !scans.is_empty() {
                return Err(self.err("a scan in a stencil without levels"));
            }
            if cuda {
                self.open(format!("if (h >= {d0} && h < {d1})"));
            } else {
                self.open("");
                self.line(format!(
                    "const foehn_idx ch0 = hb > {d0} ? hb : {d0}, ch1 = hb1 < {d1} ? hb1 : {d1};"
                ));
            }
            if has_k {
                self.line(format!("const foehn_idx ck0 = {d2}, ck1 = {d3};"));
                self.col_range = ("ck0".into(), "ck1".into());
            } else {
                self.line("const foehn_idx k = 0;");
            }
            let columns = "for (foehn_idx h = ch0; h < ch1; ++h)";
            let levels = "for (foehn_idx k = ck0; k < ck1; ++k)";
            // The loops around the member's point, outermost first.
            let loops: Vec<&str> = match (cuda, scans.is_empty(), has_k) {
                (true, _, true) => vec![levels],
                (true, _, false) => vec![],
                (false, true, true) => vec![levels, columns],
                (false, true, false) => vec![columns],
                (false, false, _) => {
                    self.open(columns);
                    vec![levels]
                }
            };
            for &sid in &scans {
                self.emit_scan_column(sid, false)?;
            }
            for l in &loops {
                self.open(*l);
            }
            self.point(member)?;
            for _ in &loops {
                self.close();
            }
            if !cuda && !scans.is_empty() {
                self.close();
            }
            self.col_range = ("k0".into(), "k1".into());
            self.close();
        }
        if !cuda {
            self.close();
        }
        self.st = st;
        Ok(())
    }

    /// Opens a C column kernel's loop over blocks of [`COLUMN_BLOCK`] points, `hb` to
    /// `hb1` (close it after).
    pub(super) fn open_column_blocks(&mut self) {
        let b = COLUMN_BLOCK;
        self.open(format!("for (foehn_idx hb = h0; hb < h1; hb += {b})"));
        self.line(format!(
            "const foehn_idx hb1 = hb + {b} < h1 ? hb + {b} : h1;"
        ));
    }

    /// The index of level `k` of the current point in local temporary `LT<i>`: the
    /// level on the GPU (a thread's own column), level-major over the block's points in C.
    pub(super) fn local_index(&self, k: &str) -> String {
        match self.target {
            Target::Cuda => k.to_string(),
            Target::C => format!("({k}) * {COLUMN_BLOCK} + (h - hb)"),
        }
    }

    /// On the GPU, a column kernel's per-thread arrays hold `FOEHN_MAXK` levels: the
    /// kernel fails (site check) where a local temporary has more.
    fn check_local_columns(&mut self) {
        if !matches!(self.target, Target::Cuda) {
            return;
        }
        for f in self.local.clone() {
            let name = self.prog.field(f).name.clone();
            let site = self.site(&format!(
                "temporary `{name}` has more levels than the kernel's columns (FOEHN_MAXK)"
            ));
            self.line(format!(
                "if (NK{} > FOEHN_MAXK) {{ FOEHN_ERR({site}); return; }}",
                f.0
            ));
        }
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
            if self.local.contains(f) {
                let at = self.local_index("k");
                self.line(format!("LT{i}[{at}] = {value};"));
                continue;
            }
            self.line(format!("WR{i}[h*SH{i}{kpart}] = {value};"));
        }
        Ok(())
    }

    /// Declares and fills the column arrays of a scan at the current `h`; with `tail`, the
    /// stencil's outputs are computed and stored in the scan's loop instead, from its
    /// carries (see [`Program::outputs_join_scan`]), and its columns are not kept.
    fn emit_scan_column(&mut self, sid: ExprId, tail: bool) -> Result<(), CodegenError> {
        self.scan_open(sid, tail)?;
        let (k0, k1) = self.col_range.clone();
        let head = match self.scan_dir(sid) {
            ScanDir::Forward => format!("for (foehn_idx kc = {k0}; kc < {k1}; ++kc)"),
            ScanDir::Backward => format!("for (foehn_idx kc = {k1} - 1; kc >= {k0}; --kc)"),
        };
        self.open(head);
        self.scan_step(sid, tail)?;
        self.close();
        Ok(())
    }

    /// The index in a scan column of the level `rel` above its first: `rel` itself, or
    /// in a C lockstep kernel (a column per point of the block) level-major over the
    /// block's points.
    pub(super) fn column_index(&self, rel: &str) -> String {
        if self.block_lockstep {
            format!("({rel}) * {COLUMN_BLOCK} + (h - hb)")
        } else {
            rel.to_string()
        }
    }

    /// The direction of scan `sid`.
    pub(super) fn scan_dir(&self, sid: ExprId) -> ScanDir {
        match self.prog.node(sid) {
            Node::Scan { dir, .. } => *dir,
            _ => unreachable!("not a scan"),
        }
    }

    /// Declares the column arrays (unless `tail`) and the carries of scan `sid`, the
    /// carries initialised at level `col_range.0`, and makes it the active scan.
    pub(super) fn scan_open(&mut self, sid: ExprId, tail: bool) -> Result<(), CodegenError> {
        let Node::Scan { id, init, body, .. } = self.prog.node(sid).clone() else {
            unreachable!()
        };
        let (k0, k1) = self.col_range.clone();
        let pt0 = Pt {
            h: "h".into(),
            loc: self.st.location,
            k: KPos {
                base: k0.clone(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: true,
        };
        let mut columns = Vec::new();
        let mut carries = Vec::new();
        let block = self.block_lockstep;
        let per_point = if block {
            format!(" * {COLUMN_BLOCK}")
        } else {
            String::new()
        };
        for (i, &b) in body.iter().enumerate() {
            let t = ctype(self.dtype(b));
            let col = format!("COL{id}_{i}");
            match self.target {
                _ if tail => {}
                Target::C => self.line(format!(
                    "{t} {col}[(({k1} - {k0}) > 0 ? ({k1} - {k0}) : 1){per_point}];"
                )),
                Target::Cuda if self.warp_column => self.warp_array(t, &col),
                Target::Cuda => self.line(format!("{t} {col}[FOEHN_MAXK];")),
            }
            let c = format!("C{id}_{i}");
            if block {
                // A carry per point of the block, started in a loop over them below.
                self.line(format!("{t} {c}[{COLUMN_BLOCK}];"));
                carries.push(format!("{c}[h - hb]"));
            } else {
                let v = self.emit(init[i], &pt0)?;
                self.line(format!("{t} {c} = {};", v.s()));
                carries.push(c);
            }
            columns.push(col);
        }
        if block {
            self.open("for (foehn_idx h = hb; h < hb1; ++h)");
            for (i, carry) in carries.iter().enumerate() {
                let v = self.emit(init[i], &pt0)?;
                self.line(format!("{carry} = {};", v.s()));
            }
            self.close();
        }
        self.scans.insert(
            id,
            ScanCtx {
                columns,
                carries,
                active: true,
                tail: false,
            },
        );
        Ok(())
    }

    /// One step of the active scan `sid` at level `kc` (a variable in scope): its body,
    /// the carries updated and stored in its columns; with `tail`, the stencil's outputs
    /// at `k = kc` from the carries instead of columns. Leaves the scan finished.
    pub(super) fn scan_step(&mut self, sid: ExprId, tail: bool) -> Result<(), CodegenError> {
        let Node::Scan { id, body, .. } = self.prog.node(sid).clone() else {
            unreachable!()
        };
        let k0 = self.col_range.0.clone();
        let pt = Pt {
            h: "h".into(),
            loc: self.st.location,
            k: KPos {
                base: "kc".into(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: true,
        };
        let mut next = Vec::new();
        for &b in &body {
            let v = self.emit(b, &pt)?;
            next.push(v.s().to_string());
        }
        let (columns, carries) = {
            let s = &self.scans[&id];
            (s.columns.clone(), s.carries.clone())
        };
        for i in 0..body.len() {
            self.line(format!("{} = {};", carries[i], next[i]));
            if !tail {
                let at = self.column_index(&format!("kc - {k0}"));
                self.line(format!("{}[{at}] = {};", columns[i], carries[i]));
            }
        }
        if let Some(s) = self.scans.get_mut(&id) {
            s.active = false;
            s.tail = tail;
        }
        if tail {
            self.line("const foehn_idx k = kc;");
            let st = self.st;
            self.point(st)?;
        }
        Ok(())
    }
}

/// Points of a C column kernel's block: each member runs on the block's columns before
/// the next (see `Gen::column_members`); local temporaries hold a block's columns.
pub(super) const COLUMN_BLOCK: usize = 32;

/// Whether the domain `outer` (`[h0, h1, k0, k1]`) contains `inner`.
fn contains(outer: &[i64; 4], inner: &[i64; 4]) -> bool {
    outer[0] <= inner[0] && inner[1] <= outer[1] && outer[2] <= inner[2] && inner[3] <= outer[3]
}

/// The order in which a fused kernel's members are emitted: as scheduled, or, when no
/// member reads what another one writes and no two write the same field (so any order
/// computes the same), larger domains first (stable: by level count, then point count,
/// descending), so that members on smaller domains nest inside them and share what
/// they computed.
fn member_order(prog: &Program, members: &[&Stencil], domains: &[[i64; 4]]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    let independent = members.iter().all(|a| {
        let read = prog.fields_read(a.root);
        members.iter().all(|b| {
            std::ptr::eq(*a, *b)
                || b.outputs
                    .iter()
                    .all(|o| !read.contains(o) && !a.outputs.contains(o))
        })
    });
    if independent {
        order.sort_by_key(|&m| {
            let d = &domains[m];
            (
                std::cmp::Reverse(d[3] - d[2]),
                std::cmp::Reverse(d[1] - d[0]),
            )
        });
    }
    order
}
