//! Level windows of a lockstep loop (GridTools' k-caches): an input field the loop's
//! entries read in their own column at several levels around the loop's level is held in
//! registers `W<f>_<n>`, one per level of the window. Each iteration loads the one level
//! the window gains and shifts the others, so a value read at `k + 1` on one level is not
//! fetched again (from a cache that a thread per column walking many fields overruns) on
//! the next. A window loads a level only inside the levels and points its readers can
//! read; the reads keep their level checks.

use super::*;
use crate::ir::{LockstepEntry as Entry, LockstepPart as Part};

/// One field's window: levels `i + cmin ..= i + cmax` of loop iteration `i`.
pub(super) struct Window {
    field: FieldId,
    cmin: i64,
    cmax: i64,
    /// The levels and points any read can fall on: `(c0, c1, h0, h1)` C expressions.
    bounds: (String, String, String, String),
}

impl<'a> Gen<'a> {
    /// The roots an entry evaluates at its level (the scan member's scans are read from
    /// their columns and carries).
    fn entry_roots(&self, members: &[&'a Stencil], e: &Entry) -> Vec<ExprId> {
        let scan_body = |sid: ExprId| match self.prog.node(sid) {
            Node::Scan { body, .. } => body.clone(),
            _ => unreachable!("not a scan"),
        };
        match e.part {
            Part::Outputs => vec![members[e.member].root],
            Part::ForwardStep(sid) => scan_body(sid),
            Part::StepAndOutputs(sid) => {
                let mut r = scan_body(sid);
                r.push(members[e.member].root);
                r
            }
        }
    }

    /// The windows of one loop: input fields (written by no member, not local, numeric,
    /// with levels and points, no neighbour dimension) read at two or more levels
    /// relative to the loop's level. Declares their bounds.
    pub(super) fn plan_windows(
        &mut self,
        members: &[&'a Stencil],
        entries: &[Entry],
        ascending: bool,
    ) -> Vec<Window> {
        let written: BTreeSet<FieldId> = members
            .iter()
            .flat_map(|m| m.outputs.iter().copied())
            .collect();
        // Per field: (entry's member, offset, level relative to i).
        let mut reads: BTreeMap<FieldId, Vec<(usize, i64, i64)>> = BTreeMap::new();
        for e in entries {
            let r = if ascending { -e.skew } else { e.skew } as i64;
            // The entry's roots include the body of the scan it steps; the scan member's
            // scans themselves are read from columns and carries.
            let scans = self
                .prog
                .scans(members[e.member].root)
                .into_iter()
                .collect();
            let at_levels = self.prog.level_reads(&self.entry_roots(members, e), &scans);
            for read in at_levels.into_iter().filter(|r| r.own_column) {
                if let Some(off) = read.offset {
                    let off = off as i64;
                    reads
                        .entry(read.field)
                        .or_default()
                        .push((e.member, off, r + off));
                }
            }
        }
        let mut out = Vec::new();
        for (f, at) in reads {
            let d = self.prog.field(f);
            let eligible = !written.contains(&f)
                && !self.local.contains(&f)
                && matches!(d.ty.dtype, DType::F64 | DType::F32)
                && d.ty.dims.vertical.is_some()
                && d.ty.dims.horizontal.is_some()
                && d.ty.dims.local.is_none();
            let levels: BTreeSet<i64> = at.iter().map(|a| a.2).collect();
            // With prefetch a field read at one level gets a window too.
            let fewest = if self.level_prefetch { 1 } else { 2 };
            if !eligible || levels.len() < fewest {
                continue;
            }
            let i = f.0;
            let names = [
                format!("wk0_{i}"),
                format!("wk1_{i}"),
                format!("wh0_{i}"),
                format!("wh1_{i}"),
            ];
            for (n, (m, off, _)) in at.iter().enumerate() {
                let (k0, k1) = (format!("ck0_{m} + {off}"), format!("ck1_{m} + {off}"));
                let (h0, h1) = (self.dom_bound(4 * m), self.dom_bound(4 * m + 1));
                if n == 0 {
                    self.line(format!(
                        "foehn_idx {} = {k0}, {} = {k1}, {} = {h0}, {} = {h1};",
                        names[0], names[1], names[2], names[3]
                    ));
                } else {
                    for (name, v, less) in [
                        (&names[0], k0, true),
                        (&names[1], k1, false),
                        (&names[2], h0, true),
                        (&names[3], h1, false),
                    ] {
                        let cmp = if less { '<' } else { '>' };
                        self.line(format!("if ({v} {cmp} {name}) {name} = {v};"));
                    }
                }
            }
            self.reads.insert(f);
            let [c0, c1, h0, h1] = names;
            // With prefetch the window reaches one level further along the loop: each
            // iteration loads what the next one reads.
            let ahead = i64::from(self.level_prefetch);
            let (first, last) = (*levels.first().unwrap(), *levels.last().unwrap());
            out.push(Window {
                field: f,
                cmin: if ascending { first } else { first - ahead },
                cmax: if ascending { last + ahead } else { last },
                bounds: (c0, c1, h0, h1),
            });
        }
        out
    }

    /// The window register of `w` at level `i + c` (in a C lockstep kernel, its element
    /// for the point `h` of the block).
    fn window_reg(&self, w: &Window, c: i64) -> String {
        let name = format!("W{}_{}", w.field.0, c - w.cmin);
        if self.block_lockstep {
            format!("{name}[h - hb]")
        } else {
            name
        }
    }

    /// Opens a loop over the block's points in a C lockstep kernel; returns whether it
    /// did (close it then).
    fn over_block(&mut self) -> bool {
        if self.block_lockstep {
            self.open("for (foehn_idx h = hb; h < hb1; ++h)");
        }
        self.block_lockstep
    }

    /// `w`'s field at level `level` (a C expression), 0 outside where it can be read.
    fn window_load(&self, w: &Window, level: &str) -> String {
        let d = self.prog.field(w.field);
        let i = w.field.0;
        let (c0, c1, h0, h1) = &w.bounds;
        let zero = if d.ty.dtype == DType::F32 {
            "0.0f"
        } else {
            "0.0"
        };
        format!(
            "(({level}) >= {c0} && ({level}) < {c1} && ({level}) >= 0 && ({level}) < NK{i} && h >= {h0} && h < {h1}) ? RD{i}[h*SH{i} + ({level})*SK{i}] : {zero}"
        )
    }

    /// Declares the windows' registers before a loop starting at `first` (its first
    /// iteration), filled but for the level each iteration loads.
    pub(super) fn open_windows(&mut self, windows: &[Window], first: &str, ascending: bool) {
        for w in windows {
            let t = ctype(self.prog.field(w.field).ty.dtype);
            for c in w.cmin..=w.cmax {
                let name = format!("W{}_{}", w.field.0, c - w.cmin);
                match self.block_lockstep {
                    true => self.line(format!("{t} {name}[{}];", body::COLUMN_BLOCK)),
                    false => self.line(format!("{t} {name} = 0;")),
                }
            }
        }
        let block = self.over_block();
        for w in windows {
            for c in w.cmin..=w.cmax {
                let fresh = if ascending { c == w.cmax } else { c == w.cmin };
                if !fresh {
                    let value = self.window_load(w, &format!("{first} + {c}"));
                    self.line(format!("{} = {value};", self.window_reg(w, c)));
                }
            }
        }
        if block {
            self.close();
        }
        let mut regs = BTreeMap::new();
        for w in windows {
            for c in w.cmin..=w.cmax {
                regs.insert((w.field, c), self.window_reg(w, c));
            }
        }
        self.window = regs;
    }

    /// At the top of iteration `i`: the level each window gains.
    pub(super) fn load_windows(&mut self, windows: &[Window], ascending: bool) {
        if windows.is_empty() {
            return;
        }
        let block = self.over_block();
        for w in windows {
            let c = if ascending { w.cmax } else { w.cmin };
            let value = self.window_load(w, &format!("i + {c}"));
            self.line(format!("{} = {value};", self.window_reg(w, c)));
        }
        if block {
            self.close();
        }
    }

    /// At the end of an iteration: every window moves one level along the loop.
    pub(super) fn shift_windows(&mut self, windows: &[Window], ascending: bool) {
        if windows.is_empty() {
            return;
        }
        let block = self.over_block();
        for w in windows {
            let moves: Vec<(i64, i64)> = if ascending {
                (w.cmin..w.cmax).map(|c| (c, c + 1)).collect()
            } else {
                (w.cmin + 1..=w.cmax).rev().map(|c| (c, c - 1)).collect()
            };
            for (to, from) in moves {
                let line = format!("{} = {};", self.window_reg(w, to), self.window_reg(w, from));
                self.line(line);
            }
        }
        if block {
            self.close();
        }
    }

    /// The window register holding `f` at `pt`'s level, if the current lockstep entry
    /// (at `i + entry_at`) has one there.
    pub(super) fn window_read(&self, f: FieldId, pt: &Pt) -> Option<String> {
        let r = self.entry_at?;
        if pt.h != "h" || pt.j.is_some() || !(pt.k.base == "k" || pt.k.base == "kc") {
            return None;
        }
        self.window.get(&(f, r + pt.k.off)).cloned()
    }
}
