//! Expression emission: fields, neighbours, reductions, branches, scans' results.

use super::*;

impl Gen<'_> {
    /// A checked vertical index for reading something with `levels` levels.
    pub(super) fn k_index(
        &mut self,
        pt: &Pt,
        levels: &str,
        what: &str,
        needs_check: bool,
    ) -> String {
        if !needs_check {
            return pt.k.expr();
        }
        let kk = self.fresh("kk");
        let site = self.site(&format!("{what} read at a level outside its levels"));
        self.line(format!("foehn_idx {kk} = {};", pt.k.expr()));
        self.line(format!(
            "if ({kk} < 0 || {kk} >= {levels}) {{ FOEHN_ERR({site}); {kk} = 0; }}"
        ));
        kk
    }

    pub(super) fn emit(&mut self, id: ExprId, pt: &Pt) -> Result<Val, CodegenError> {
        let key: Key = (id.0, pt.h.clone(), pt.k.clone(), pt.j.clone());
        if let Some(v) = self.cached(&key) {
            return Ok(v);
        }
        let v = self.emit_node(id, pt)?;
        if let Val::S(s) = &v {
            // Bind non-trivial expressions to a variable so they are computed once.
            if !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                let var = self.fresh("v");
                let t = ctype(self.dtype(id));
                self.line(format!("const {t} {var} = {s};"));
                let v = Val::S(var);
                self.scopes
                    .last_mut()
                    .expect("scope")
                    .insert(key, v.clone());
                return Ok(v);
            }
        }
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(key, v.clone());
        Ok(v)
    }

    pub(super) fn emit_node(&mut self, id: ExprId, pt: &Pt) -> Result<Val, CodegenError> {
        let node = self.prog.node(id).clone();
        let t = self.dtype(id);
        Ok(match node {
            Node::Field(f) => Val::S(self.field_read(f, pt)?),
            Node::Scalar(s) => {
                self.scalars.insert(s.0);
                Val::S(format!("S{}", s.0))
            }
            Node::Const(c) => Val::S(literal(c)),
            Node::HIndex(_) => Val::S(format!("((int32_t){})", pt.h)),
            Node::KIndex(_) => Val::S(format!("((int32_t){})", pt.k.expr())),
            Node::Unary(op, a) => {
                let a = self.emit(a, pt)?;
                Val::S(self.unary(op, a.s(), self.dtype(id)))
            }
            Node::Binary(op, a, b) => {
                let ta = self.dtype(a);
                let (a, b) = (self.emit(a, pt)?, self.emit(b, pt)?);
                Val::S(self.binary(op, a.s(), b.s(), ta))
            }
            Node::Where(m, a, b) => {
                let m = self.emit(m, pt)?;
                match self.slot_select(id, m.s(), a, b, pt)? {
                    Some(v) => v,
                    None => self.branches(id, m.s().to_string(), a, b, pt, true)?,
                }
            }
            Node::ConcatWhere(region, a, b) => {
                let cond = self.region_cond(&region, pt)?;
                self.branches(id, cond, a, b, pt, false)?
            }
            Node::Cast(to, a) => {
                let from = self.dtype(a);
                let a = self.emit(a, pt)?;
                Val::S(cast(a.s(), from, to))
            }
            Node::Shift(conn, a) => {
                if let Some(tile) = self.tile_read(conn, a, pt) {
                    return Ok(Val::S(tile));
                }
                let j = pt.j.clone().ok_or_else(|| {
                    self.err(format!("{conn} shift evaluated without a neighbour slot"))
                })?;
                let sub = self.at_neighbor(conn, pt, &j)?;
                self.emit(a, &sub)?
            }
            Node::Neighbor(conn, slot, a) => {
                // A selected slot (a variable, see `slots`) is never read from a tile.
                let j = self.slot_text(slot);
                if hoist::is_slot(&j) {
                    if let Some(tile) = self.tile_read_slot(conn, slot, a, pt)? {
                        return Ok(Val::S(tile));
                    }
                }
                let sub = self.at_neighbor(conn, pt, &j)?;
                self.emit(a, &sub)?
            }
            Node::Pick(slot, a) => {
                let sub = Pt {
                    j: Some(self.slot_text(slot)),
                    guard: None,
                    ..pt.clone()
                };
                self.emit(a, &sub)?
            }
            Node::Reduce(op, conn, a) => Val::S(self.reduce(op, conn, a, t, pt)?),
            Node::KShift(n, a) => {
                let sub = Pt {
                    k: KPos {
                        base: pt.k.base.clone(),
                        off: pt.k.off + n as i64,
                    },
                    ..pt.clone()
                };
                self.emit(a, &sub)?
            }
            Node::KOffset(a, off) => {
                let o = self.emit(off, pt)?;
                let kk = self.fresh("ko");
                self.line(format!(
                    "const foehn_idx {kk} = {} + (foehn_idx)({});",
                    pt.k.expr(),
                    o.s()
                ));
                let sub = Pt {
                    k: KPos { base: kk, off: 0 },
                    ..pt.clone()
                };
                self.emit(a, &sub)?
            }
            Node::VCast(_, a) | Node::Broadcast(_, a) => self.emit(a, pt)?,
            Node::Tuple(items) => {
                let mut v = Vec::new();
                for i in items {
                    v.push(self.emit(i, pt)?);
                }
                Val::T(v)
            }
            Node::Get(i, a) => match self.emit(a, pt)? {
                Val::T(items) => items[i as usize].clone(),
                Val::S(_) => return Err(self.err("tuple element of a non-tuple")),
            },
            Node::Scan { id: sid, .. } => {
                if !pt.own_h {
                    return Err(self.err(
                        "a scan result read at a neighbour (shifted horizontally) is not supported",
                    ));
                }
                let cols = match self.scans.get(&sid) {
                    Some(s) if s.tail && pt.k.base == "k" && pt.k.off == 0 => {
                        return Ok(scan_value(s.carries.clone()));
                    }
                    Some(s) if s.tail => {
                        return Err(
                            self.err("scan result read away from its level in the scan's loop")
                        )
                    }
                    Some(s) if !s.active => s.columns.clone(),
                    _ => return Err(self.err("scan result used inside its own body")),
                };
                let kk = self.fresh("ks");
                let site =
                    self.site("scan result read at a level outside the stencil's vertical range");
                let (k0, k1) = self.col_range.clone();
                self.line(format!(
                    "foehn_idx {kk} = {} - (foehn_idx){k0};",
                    pt.k.expr()
                ));
                self.line(format!(
                    "if ({kk} < 0 || {kk} >= {k1} - {k0}) {{ FOEHN_ERR({site}); {kk} = 0; }}"
                ));
                let at = self.column_index(&kk);
                scan_value(cols.iter().map(|c| format!("{c}[{at}]")).collect())
            }
            Node::Carry { scan, index } => match self.scans.get(&scan) {
                Some(s) if s.active => Val::S(s.carries[index as usize].clone()),
                _ => return Err(self.err("scan carry used outside its scan")),
            },
        })
    }

    pub(super) fn field_read(&mut self, f: FieldId, pt: &Pt) -> Result<String, CodegenError> {
        self.reads.insert(f);
        let d = self.prog.field(f).clone();
        let i = f.0;
        let j = match d.ty.dims.local {
            Some(_) => Some(pt.j.clone().ok_or_else(|| {
                self.err(format!("field `{}` read without a neighbour slot", d.name))
            })?),
            None => None,
        };
        let dims = d.ty.dims;
        if self.hoist.is_some() && dims.vertical.is_none() {
            if let Some(v) = self.hoisted_read(f, pt, |h, j| load(i, dims, h, j, None)) {
                return Ok(v);
            }
        }
        let kk = match dims.vertical {
            // Reads at the stencil's own level of a field of the stencil's vertical kind
            // are in range (the domain lies within the output's levels); others are checked.
            Some(v) => {
                let plain = pt.k.off == 0
                    && (pt.k.base == "k" || pt.k.base == "kc")
                    && Some(v) == self.st.vertical;
                Some(self.k_index(
                    pt,
                    &format!("NK{i}"),
                    &format!("field `{}`", d.name),
                    !plain,
                ))
            }
            None => None,
        };
        let value = match (self.local.contains(&f), kk.as_deref()) {
            // A column kernel's local temporary: read in the own column (ADR 0019).
            (true, Some(kk)) if pt.h == "h" => format!("LT{i}[{}]", self.local_index(kk)),
            (true, _) => {
                return Err(self.err(format!(
                    "local temporary `{}` read outside its own column",
                    d.name
                )))
            }
            _ => match self.window_read(f, pt) {
                Some(w) => w,
                None => load(i, dims, &pt.h, j.as_deref(), kk.as_deref()),
            },
        };
        Ok(if d.ty.dtype == DType::Bool {
            format!("({value} != 0)")
        } else {
            value
        })
    }

    /// The point `j`-th `conn` neighbour of `pt` (same levels).
    fn at_neighbor(&mut self, conn: Connectivity, pt: &Pt, j: &str) -> Result<Pt, CodegenError> {
        Ok(Pt {
            h: self.neighbor_index(conn, pt, j)?,
            loc: Some(conn.to()),
            j: None,
            guard: None,
            own_h: false,
            k: pt.k.clone(),
        })
    }

    pub(super) fn neighbor_index(
        &mut self,
        conn: Connectivity,
        pt: &Pt,
        j: &str,
    ) -> Result<String, CodegenError> {
        if let Some((c, h, gj, nb)) = &pt.guard {
            if *c == conn && *h == pt.h && gj == j {
                return Ok(nb.clone());
            }
        }
        self.tables.insert(conn);
        let site = self.site(&format!(
            "{conn} neighbour {j} read through a missing neighbour (skip value -1)"
        ));
        if let Some(clamped) = self.hoisted_neighbor(conn, &pt.h, j, site) {
            return Ok(clamped);
        }
        let nb = self.fresh("n");
        self.line(format!(
            "foehn_idx {nb} = T_{}[{}*{} + {j}];",
            conn.name(),
            pt.h,
            conn.width()
        ));
        self.line(format!("if ({nb} < 0) {{ FOEHN_ERR({site}); {nb} = 0; }}"));
        Ok(nb)
    }

    pub(super) fn reduce(
        &mut self,
        op: ReduceOp,
        conn: Connectivity,
        a: ExprId,
        t: DType,
        pt: &Pt,
    ) -> Result<String, CodegenError> {
        self.tables.insert(conn);
        let acc = self.fresh("acc");
        let j = self.fresh("j");
        let nb = self.fresh("nb");
        let init = match (op, t) {
            (ReduceOp::Sum, DType::F32) => "0.0f",
            (ReduceOp::Sum, DType::F64) => "0.0",
            (ReduceOp::Sum, _) => "0",
            (ReduceOp::Max, DType::F64 | DType::F32) => "(-INFINITY)",
            (ReduceOp::Min, DType::F64 | DType::F32) => "INFINITY",
            (ReduceOp::Max, _) => "INT32_MIN",
            (ReduceOp::Min, _) => "INT32_MAX",
        };
        self.line(format!("{} {acc} = {init};", ctype(t)));
        let row = self.hoisted_row(conn, &pt.h, &j, &nb);
        if row.is_some() {
            // Fully unrolled, so the hoisted arrays it indexes stay in registers.
            self.line("#pragma unroll");
        }
        self.open(format!(
            "for (foehn_idx {j} = 0; {j} < {}; ++{j})",
            conn.width()
        ));
        match row {
            Some(row) => self.line(format!("const foehn_idx {nb} = {row};")),
            None => self.line(format!(
                "const foehn_idx {nb} = T_{}[{}*{} + {j}];",
                conn.name(),
                pt.h,
                conn.width()
            )),
        }
        self.line(format!("if ({nb} < 0) continue;"));
        let sub = Pt {
            j: Some(j.clone()),
            guard: Some((conn, pt.h.clone(), j.clone(), nb)),
            ..pt.clone()
        };
        let v = self.emit(a, &sub)?;
        let update = match (op, t) {
            (ReduceOp::Sum, DType::I32) => format!("foehn_wrap((int64_t){acc} + {})", v.s()),
            (ReduceOp::Sum, _) => format!("{acc} + {}", v.s()),
            (ReduceOp::Max, DType::F64) => format!("fmax({acc}, {})", v.s()),
            (ReduceOp::Min, DType::F64) => format!("fmin({acc}, {})", v.s()),
            (ReduceOp::Max, DType::F32) => format!("fmaxf({acc}, {})", v.s()),
            (ReduceOp::Min, DType::F32) => format!("fminf({acc}, {})", v.s()),
            (ReduceOp::Max, _) => format!("foehn_imax({acc}, {})", v.s()),
            (ReduceOp::Min, _) => format!("foehn_imin({acc}, {})", v.s()),
        };
        self.line(format!("{acc} = {update};"));
        self.close();
        Ok(acc)
    }

    pub(super) fn branches(
        &mut self,
        id: ExprId,
        cond: String,
        a: ExprId,
        b: ExprId,
        pt: &Pt,
        data_dependent: bool,
    ) -> Result<Val, CodegenError> {
        // Values both branches compute at this point are computed once, before the
        // branch: a warp whose threads take both sides would otherwise compute them twice.
        let common: BTreeSet<ExprId> = &always(self.prog, a) & &always(self.prog, b);
        for c in common {
            self.emit(c, pt)?;
        }
        let shape = self.prog.ty(id).clone();
        let vars = self.declare(&shape);
        let side = |g: &mut Self, head: String, e: ExprId| {
            g.open(head);
            if data_dependent {
                g.data_branch(true);
            }
            let v = g.emit(e, pt);
            if data_dependent {
                g.data_branch(false);
            }
            let v = v?;
            g.assign(&vars, &v);
            g.close();
            Ok::<_, CodegenError>(())
        };
        side(self, format!("if ({cond})"), a)?;
        side(self, "else".to_string(), b)?;
        Ok(vars)
    }

    pub(super) fn declare(&mut self, ty: &Type) -> Val {
        match ty {
            Type::Field(f) => {
                let v = self.fresh("w");
                self.line(format!("{} {v};", ctype(f.dtype)));
                Val::S(v)
            }
            Type::Tuple(items) => Val::T(items.iter().map(|t| self.declare(t)).collect()),
        }
    }

    pub(super) fn assign(&mut self, to: &Val, from: &Val) {
        match (to, from) {
            (Val::S(a), Val::S(b)) => self.line(format!("{a} = {b};")),
            (Val::T(a), Val::T(b)) => a.iter().zip(b).for_each(|(x, y)| self.assign(x, y)),
            _ => self.line("/* shape mismatch */"),
        }
    }

    pub(super) fn region_cond(&mut self, region: &Region, pt: &Pt) -> Result<String, CodegenError> {
        let mut parts = Vec::new();
        for iv in &region.intervals {
            let idx = match iv.dim {
                IndexDim::H(l) => {
                    if let Some(at) = pt.loc.filter(|&at| at != l) {
                        return Err(self.err(format!("region on {l} evaluated at a {at} point")));
                    }
                    pt.h.clone()
                }
                IndexDim::V(_) => pt.k.expr(),
            };
            for (b, op) in [(iv.lo, ">="), (iv.hi, "<")] {
                if let Some(b) = b {
                    let i = self.shared.bound(iv.dim, b);
                    self.bounds_used.insert(i);
                    parts.push(format!("{idx} {op} B{i}"));
                }
            }
        }
        Ok(if parts.is_empty() {
            "1".into()
        } else {
            parts.join(" && ")
        })
    }
}

/// A scan's result from one C expression per carry: the value, or a tuple of them.
fn scan_value(mut carries: Vec<String>) -> Val {
    match carries.len() {
        1 => Val::S(carries.remove(0)),
        _ => Val::T(carries.into_iter().map(Val::S).collect()),
    }
}

/// The nodes evaluated at the point of `root` whenever `root` is: `root`, its operands
/// at the same point, a `where`'s mask, and what both branches of a branch evaluate.
/// Nodes that evaluate operands elsewhere (shifts, reductions, level offsets, scans) are
/// included whole, not their operands. Ascending ids: operands before their users.
pub(super) fn always(p: &Program, root: ExprId) -> BTreeSet<ExprId> {
    fn walk(
        p: &Program,
        id: ExprId,
        memo: &mut BTreeMap<ExprId, BTreeSet<ExprId>>,
    ) -> BTreeSet<ExprId> {
        if let Some(s) = memo.get(&id) {
            return s.clone();
        }
        let mut out = BTreeSet::from([id]);
        match p.node(id) {
            Node::Where(m, a, b) => {
                out.extend(walk(p, *m, memo));
                let (x, y) = (walk(p, *a, memo), walk(p, *b, memo));
                out.extend(x.intersection(&y).copied());
            }
            Node::ConcatWhere(_, a, b) => {
                let (x, y) = (walk(p, *a, memo), walk(p, *b, memo));
                out.extend(x.intersection(&y).copied());
            }
            Node::Unary(_, a)
            | Node::Cast(_, a)
            | Node::VCast(_, a)
            | Node::Broadcast(_, a)
            | Node::Get(_, a) => {
                out.extend(walk(p, *a, memo));
            }
            Node::Binary(_, a, b) => {
                out.extend(walk(p, *a, memo));
                out.extend(walk(p, *b, memo));
            }
            Node::Tuple(items) => {
                for i in items {
                    out.extend(walk(p, *i, memo));
                }
            }
            _ => {}
        }
        memo.insert(id, out.clone());
        out
    }
    walk(p, root, &mut BTreeMap::new())
}

/// The load of field `i` (with dimensions `dims`) at horizontal index `h`, slot `j` and
/// level `k` (each used where the field has that dimension).
fn load(i: u32, dims: Dims, h: &str, j: Option<&str>, k: Option<&str>) -> String {
    let mut idx = Vec::new();
    if dims.horizontal.is_some() {
        idx.push(format!("{h}*SH{i}"));
    }
    if let (Some(_), Some(j)) = (dims.local, j) {
        idx.push(format!("{j}*SJ{i}"));
    }
    if let (Some(_), Some(k)) = (dims.vertical, k) {
        idx.push(format!("{k}*SK{i}"));
    }
    let index = if idx.is_empty() {
        "0".to_string()
    } else {
        idx.join(" + ")
    };
    format!("RD{i}[{index}]")
}
