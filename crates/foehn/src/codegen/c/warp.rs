//! Column kernels in the level-fastest layout: a warp per column (ADR 0032).
//!
//! In the level-fastest layout a column's levels are contiguous, so the 32 lanes of a
//! warp load 32 consecutive levels of one column in one transaction. A CUDA column
//! kernel there runs its members one after another (program order, as `column_members`)
//! with the lanes spread over the levels of the column, a `__syncwarp` between members:
//!
//! - a member's outputs: lane `l` computes levels `ck0 + l, ck0 + l + 32, …`;
//! - a scan: first the lanes compute, level by level in parallel, every part of the
//!   scan's body that does not depend on its carries (the *staged* parts: loads and
//!   arithmetic, under the `concat_where` regions that guard them) into shared memory;
//!   then lane 0 walks the levels, its body reading the staged values, so the serial
//!   chain touches only shared memory.
//!
//! The per-thread column arrays of the thread-per-column kernel (scan columns, local
//! temporaries) become per-column arrays in shared memory (`FOEHN_COLUMNS` a block).
//! The scan steps run in the same order on the same values, so results agree with the
//! thread-per-column kernel up to the compiler's contraction of the staged expressions.
//!
//! A warp may also run several columns (`warp_columns`, a power of two; an ablation,
//! measured slower): each gets `32 / columns` consecutive lanes, and their lane-0 steps
//! run side by side. Lanes of one column always take the same branches, so they
//! synchronise among themselves (`__syncwarp` with the column's lane mask), whatever the
//! warp's other columns do.

use super::*;
use crate::ir::Region;

/// Most bytes of static shared memory a CUDA block gets.
const MAX_SHARED: usize = 48 * 1024;

/// Warps per block of a warp-per-column kernel, at most.
pub(super) const MAX_WARPS: usize = 4;

/// A carry-free part of a scan's body, computed by all lanes before the scan.
struct Stage {
    /// The expression.
    id: ExprId,
    /// Its level relative to the scan's level.
    off: i64,
    /// The `concat_where` regions it is evaluated under.
    guards: Vec<Guard>,
}

/// A `concat_where` side on the path to a staged part.
#[derive(Clone, PartialEq)]
struct Guard {
    region: Region,
    /// The first side (inside the region) or the second.
    inside: bool,
    /// The level of the `concat_where`, relative to the scan's level.
    off: i64,
}

impl<'a> Gen<'a> {
    /// The body of a CUDA column kernel computing `members` with a warp per column.
    /// Consecutive members without scans share one loop over the levels (a phase) while
    /// none reads what another of the phase writes away from its own level, and none
    /// writes what another of the phase reads there (lanes would race).
    pub(super) fn column_warp(&mut self, members: &[&'a Stencil]) -> Result<(), CodegenError> {
        let st = self.st;
        let mut m = 0;
        while m < members.len() {
            match self.phase_at(members, m) {
                Some(phase) => {
                    self.warp_phase(members, &phase)?;
                    m += phase.len();
                }
                None => {
                    self.warp_member(members, m)?;
                    m += 1;
                }
            }
            self.warp_sync();
        }
        self.st = st;
        Ok(())
    }

    /// The phase starting at member `m`: `m` and the members after it that may share its
    /// loop over the levels; `None` where `m` runs alone (it has a scan or no levels, or
    /// the domains are not fixed).
    fn phase_at(&self, members: &[&'a Stencil], m: usize) -> Option<Vec<usize>> {
        let alone = |st: &Stencil| st.vertical.is_none() || self.prog.has_scan(st.root);
        if alone(members[m]) || self.fixed_domains.is_none() {
            return None;
        }
        // Read only at the level where the lane computes.
        let own = |o: &Option<BTreeSet<i32>>| o.as_ref().is_some_and(|o| o.iter().all(|&d| d == 0));
        let mut phase = vec![m];
        while let Some(&next) = members.get(m + phase.len()) {
            let roots: Vec<ExprId> = phase.iter().map(|&i| members[i].root).collect();
            let read = self.prog.level_offsets(&roots, &BTreeSet::new());
            let reads = self.prog.level_offsets(&[next.root], &BTreeSet::new());
            let written = |f: &FieldId| phase.iter().any(|&i| members[i].outputs.contains(f));
            let raw = reads.iter().any(|(f, o)| written(f) && !own(o));
            let war = next
                .outputs
                .iter()
                .any(|f| read.get(f).is_some_and(|o| !own(o)));
            if alone(next) || raw || war {
                break;
            }
            phase.push(m + phase.len());
        }
        Some(phase)
    }

    /// Members `phase` (without scans, with levels, domains fixed) in one loop over the
    /// union of their levels, each under the guard of its points and levels. A lane's
    /// levels are a fixed number of iterations, unrolled, so their loads issue together.
    fn warp_phase(&mut self, members: &[&'a Stencil], phase: &[usize]) -> Result<(), CodegenError> {
        let d = self.fixed_domains.clone().expect("fixed domains");
        let lo = phase.iter().map(|&m| d[4 * m + 2]).min().unwrap_or(0);
        let hi = phase.iter().map(|&m| d[4 * m + 3]).max().unwrap_or(0);
        if hi <= lo {
            return Ok(());
        }
        let lanes = self.warp_lanes as i64;
        let n = (hi - lo + lanes - 1) / lanes;
        self.open("");
        self.line("#pragma unroll");
        self.open(format!("for (int it = 0; it < {n}; ++it)"));
        self.line(format!(
            "const foehn_idx k = {lo} + (foehn_idx)lane + {lanes} * it;"
        ));
        for &m in phase {
            let member = members[m];
            self.st = member;
            self.line(format!("/* stencil `{}` */", member.name));
            let [d0, d1, d2, d3] = [0, 1, 2, 3].map(|i| d[4 * m + i]);
            self.open(format!(
                "if (h >= {d0} && h < {d1} && k >= {d2} && k < {d3})"
            ));
            self.point(member)?;
            self.close();
        }
        self.close();
        self.close();
        Ok(())
    }

    /// Member `m` alone: its scans (staged parts, then lane 0), then its outputs over
    /// its levels by all lanes; without levels, lane 0.
    fn warp_member(&mut self, members: &[&'a Stencil], m: usize) -> Result<(), CodegenError> {
        let member = members[m];
        self.st = member;
        self.line(format!("/* stencil `{}` */", member.name));
        let has_k = member.vertical.is_some();
        let scans = self.prog.scans(member.root);
        if !has_k && !scans.is_empty() {
            return Err(self.err("a scan in a stencil without levels"));
        }
        // The guard of the member's points is uniform over the warp (one column).
        if members.len() == 1 {
            self.open("");
            self.line("const foehn_idx ck0 = k0, ck1 = k1; (void)ck0; (void)ck1;");
        } else {
            let [d0, d1, d2, d3] = [0, 1, 2, 3].map(|i| self.dom_bound(4 * m + i));
            self.open(format!("if (h >= {d0} && h < {d1})"));
            self.line(format!(
                "const foehn_idx ck0 = {d2}, ck1 = {d3}; (void)ck0; (void)ck1;"
            ));
        }
        if has_k {
            self.col_range = ("ck0".into(), "ck1".into());
            for &sid in &scans {
                self.warp_scan(sid)?;
            }
            self.open(format!(
                "for (foehn_idx k = ck0 + (foehn_idx)lane; k < ck1; k += {})",
                self.warp_lanes
            ));
            self.point(member)?;
            self.close();
            self.col_range = ("k0".into(), "k1".into());
        } else {
            self.open("if (lane == 0)");
            self.line("const foehn_idx k = 0;");
            self.point(member)?;
            self.close();
        }
        self.close();
        Ok(())
    }

    /// Scan `sid` of the current member: its columns, the staged parts of its body
    /// computed by all lanes, then the steps on lane 0.
    fn warp_scan(&mut self, sid: ExprId) -> Result<(), CodegenError> {
        self.scan_open(sid, false)?;
        let (k0, k1) = self.col_range.clone();
        let stages = staged_parts(self.prog, sid, &self.local);
        let mut names = Vec::new();
        for s in &stages {
            let name = self.fresh("STG");
            self.warp_array(ctype(self.dtype(s.id)), &name);
            names.push(name);
        }
        if !stages.is_empty() {
            self.open(format!(
                "for (foehn_idx kc = {k0} + (foehn_idx)lane; kc < {k1}; kc += {})",
                self.warp_lanes
            ));
            // Parts under the same sides share one scope (and what they compute).
            let mut groups: Vec<(&[Guard], Vec<usize>)> = Vec::new();
            for (i, s) in stages.iter().enumerate() {
                match groups.iter_mut().find(|g| g.0 == s.guards.as_slice()) {
                    Some(g) => g.1.push(i),
                    None => groups.push((&s.guards, vec![i])),
                }
            }
            for (guards, parts) in groups {
                let mut conds = Vec::new();
                for g in guards {
                    let c = self.region_cond(&g.region, &self.scan_pt(g.off))?;
                    conds.push(if g.inside {
                        format!("({c})")
                    } else {
                        format!("!({c})")
                    });
                }
                match conds.is_empty() {
                    true => self.open(""),
                    false => self.open(format!("if ({})", conds.join(" && "))),
                }
                for i in parts {
                    let v = self.emit(stages[i].id, &self.scan_pt(stages[i].off))?;
                    self.line(format!("{}[kc - {k0}] = {};", names[i], v.s()));
                }
                self.close();
            }
            self.close();
            self.warp_sync();
        }
        self.open("if (lane == 0)");
        if let Some(n) = self.lockstep_unroll {
            self.line(format!("#pragma unroll {n}"));
        }
        self.open(match self.scan_dir(sid) {
            ScanDir::Forward => format!("for (foehn_idx kc = {k0}; kc < {k1}; ++kc)"),
            ScanDir::Backward => format!("for (foehn_idx kc = {k1} - 1; kc >= {k0}; --kc)"),
        });
        // The body reads the staged values where it would compute them.
        for (s, name) in stages.iter().zip(&names) {
            let key: Key = (s.id.0, "h".into(), self.scan_pt(s.off).k, None);
            self.scopes
                .last_mut()
                .expect("scope")
                .insert(key, Val::S(format!("{name}[kc - {k0}]")));
        }
        self.scan_step(sid, false)?;
        self.close();
        self.close();
        self.warp_sync();
        Ok(())
    }

    /// The point of the current column at the scan's level `kc` plus `off`.
    fn scan_pt(&self, off: i64) -> Pt {
        Pt {
            h: "h".into(),
            loc: self.st.location,
            k: KPos {
                base: "kc".into(),
                off,
            },
            j: None,
            guard: None,
            own_h: true,
        }
    }

    /// Columns a warp runs (32 lanes shared evenly).
    pub(super) fn columns_per_warp(&self) -> u32 {
        32 / self.warp_lanes
    }

    /// A barrier of the lanes of this column: the whole warp with one column a warp,
    /// else the column's lanes (they take the same branches; other columns may not).
    fn warp_sync(&mut self) {
        match self.warp_lanes {
            32 => self.line("__syncwarp();"),
            _ => self.line("__syncwarp(FOEHN_COLUMN_LANES);"),
        }
    }

    /// Declares `name`, a per-column array of type `t` in shared memory, as a pointer
    /// to this column's.
    pub(super) fn warp_array(&mut self, t: &str, name: &str) {
        for line in shared_column(t, name, self.warp_lanes) {
            self.line(line);
        }
        self.warp_arrays += 1;
    }

    /// Warps per block of this warp-per-column kernel, whose columns have `levels`
    /// levels: its shared columns (scan columns, staged parts, the local temporaries it
    /// declares) of all its warps' columns in at most 48 KB; an error where not even
    /// one warp's fit.
    pub(super) fn warps(&self, levels: usize) -> Result<u32, String> {
        let declared = |f: &&FieldId| self.reads.contains(f) || self.writes.contains(f);
        let per_column = self.warp_arrays + self.local.iter().filter(declared).count();
        let arrays = per_column * self.columns_per_warp() as usize;
        match warps_per_block(arrays, levels) {
            Some(n) => Ok(n as u32),
            None => Err(format!(
                "{arrays} columns of {levels} levels exceed a block's shared memory"
            )),
        }
    }
}

/// The two lines declaring `name`, an array of type `t` per column in shared memory
/// (`FOEHN_COLUMNS` of them), and `name` itself as a pointer to this thread's column,
/// whose lanes are `lanes` consecutive threads.
pub(super) fn shared_column(t: &str, name: &str, lanes: u32) -> [String; 2] {
    let column = match lanes {
        32 => "threadIdx.x >> 5".to_string(),
        n => format!("threadIdx.x / {n}"),
    };
    [
        format!("__shared__ {t} {name}_s[FOEHN_COLUMNS][FOEHN_MAXK];"),
        format!("{t}* {name} = {name}_s[{column}];"),
    ]
}

/// Warps per block of a warp-per-column kernel with `arrays` shared columns of
/// `levels` levels: at most [`MAX_WARPS`], as many as 48 KB hold; `None` if not one.
fn warps_per_block(arrays: usize, levels: usize) -> Option<usize> {
    let per_warp = arrays.max(1) * levels.max(1) * std::mem::size_of::<f64>();
    let n = (MAX_SHARED / per_warp).min(MAX_WARPS);
    (n >= 1).then_some(n)
}

/// The maximal parts of scan `sid`'s body that read none of its carries and are worth
/// computing ahead (not constants, scalars, indices, scan results or columns already in
/// shared memory), with their levels and the `concat_where` sides above them. A part
/// reached under different sides, or under a data-dependent `where`, is not staged.
fn staged_parts(p: &Program, sid: ExprId, locals: &BTreeSet<FieldId>) -> Vec<Stage> {
    let Node::Scan { id, body, .. } = p.node(sid) else {
        return Vec::new();
    };
    let mut walk = Walk {
        p,
        scan: *id,
        locals,
        carried: BTreeMap::new(),
        found: Vec::new(),
    };
    for &b in body {
        walk.visit(b, 0, &[]);
    }
    walk.found
        .into_iter()
        .filter_map(|(id, off, guards)| guards.map(|guards| Stage { id, off, guards }))
        .collect()
}

struct Walk<'p> {
    p: &'p Program,
    scan: u32,
    locals: &'p BTreeSet<FieldId>,
    /// Whether an expression reads the scan's carries.
    carried: BTreeMap<ExprId, bool>,
    /// Parts found, in order: expression, level, guards (`None` once seen under others).
    found: Vec<(ExprId, i64, Option<Vec<Guard>>)>,
}

impl Walk<'_> {
    fn visit(&mut self, n: ExprId, off: i64, guards: &[Guard]) {
        if !self.carries(n) {
            if !self.trivial(n) {
                match self.found.iter_mut().find(|f| f.0 == n && f.1 == off) {
                    Some(f) if f.2.as_deref() != Some(guards) => f.2 = None,
                    Some(_) => {}
                    None => self.found.push((n, off, Some(guards.to_vec()))),
                }
            }
            return;
        }
        match self.p.node(n).clone() {
            Node::Unary(_, a)
            | Node::Cast(_, a)
            | Node::VCast(_, a)
            | Node::Broadcast(_, a)
            | Node::Get(_, a) => self.visit(a, off, guards),
            Node::Binary(_, a, b) => {
                self.visit(a, off, guards);
                self.visit(b, off, guards);
            }
            Node::Tuple(items) => items.iter().for_each(|&i| self.visit(i, off, guards)),
            Node::KShift(s, a) => self.visit(a, off + s as i64, guards),
            Node::ConcatWhere(region, a, b) => {
                for (side, inside) in [(a, true), (b, false)] {
                    let mut g = guards.to_vec();
                    g.push(Guard {
                        region: region.clone(),
                        inside,
                        off,
                    });
                    self.visit(side, off, &g);
                }
            }
            // Data-dependent branches and offsets, neighbours: computed on lane 0.
            _ => {}
        }
    }

    /// Whether `n` reads a carry of the scan.
    fn carries(&mut self, n: ExprId) -> bool {
        if let Some(&c) = self.carried.get(&n) {
            return c;
        }
        let c = match self.p.node(n) {
            Node::Carry { scan, .. } => *scan == self.scan,
            node => node.children().into_iter().any(|c| self.carries(c)),
        };
        self.carried.insert(n, c);
        c
    }

    /// Whether `n` costs nothing worth a shared column: a constant, a scalar, an index,
    /// a scan result or a local column (already in shared memory), a tuple.
    fn trivial(&self, n: ExprId) -> bool {
        match self.p.node(n) {
            Node::Const(_)
            | Node::Scalar(_)
            | Node::KIndex(_)
            | Node::HIndex(_)
            | Node::Scan { .. }
            | Node::Tuple(_) => true,
            Node::Field(f) => self.locals.contains(f),
            Node::Get(_, a) | Node::VCast(_, a) | Node::Broadcast(_, a) => self.trivial(*a),
            _ => match self.p.ty(n) {
                Type::Field(t) => t.dims.horizontal.is_none() && t.dims.vertical.is_none(),
                Type::Tuple(_) => true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::warps_per_block;

    #[test]
    fn a_block_holds_as_many_warps_as_their_columns_fit_in_48_kb() {
        // 9 columns of 81 levels: 5.8 KB a warp, 4 warps (the most).
        assert_eq!(warps_per_block(9, 81), Some(4));
        // 20 columns of 121 levels: 19.4 KB a warp, 2 fit.
        assert_eq!(warps_per_block(20, 121), Some(2));
        // 70 columns of 121 levels: 67.8 KB, not even one warp.
        assert_eq!(warps_per_block(70, 121), None);
    }
}
