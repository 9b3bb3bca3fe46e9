//! Lockstep column kernels (ADR 0025, `opt::lockstep`): a thread per column runs the
//! ascending level loop, then the descending one; at each iteration every entry of the
//! loop computes its level (the iteration less its skew, or plus it going down) under the
//! guard of its member's points and levels. In C a block of `COLUMN_BLOCK` points walks
//! the levels together, each entry looping over the block's points (unit-stride loads);
//! scan carries, columns and level windows then hold a value per point of the block.

use super::*;
use crate::ir::{Lockstep, LockstepEntry as Entry, LockstepPart as Part};

impl<'a> Gen<'a> {
    /// The body of a lockstep column kernel computing `members` in the loops of `plan`.
    pub(super) fn column_lockstep(
        &mut self,
        members: &[&'a Stencil],
        plan: &Lockstep,
    ) -> Result<(), CodegenError> {
        let st = self.st;
        let cuda = matches!(self.target, Target::Cuda);
        if !cuda {
            self.open_column_blocks();
            self.block_lockstep = true;
        }
        for m in 0..members.len() {
            let [k0, k1] = [2, 3].map(|i| self.dom_bound(4 * m + i));
            self.line(format!("const foehn_idx ck0_{m} = {k0}, ck1_{m} = {k1};"));
        }
        self.phase(members, &plan.ascending, true)?;
        self.phase(members, &plan.descending, false)?;
        if !cuda {
            self.close();
            self.block_lockstep = false;
        }
        self.col_range = ("k0".into(), "k1".into());
        self.st = st;
        Ok(())
    }

    /// One level loop of a lockstep kernel: the carries of the scans stepped in it, then
    /// the loop over the levels any entry computes, each entry under its guard.
    fn phase(
        &mut self,
        members: &[&'a Stencil],
        entries: &[Entry],
        ascending: bool,
    ) -> Result<(), CodegenError> {
        let Some(first) = entries.first() else {
            return Ok(());
        };
        for e in entries {
            if let Part::ForwardStep(sid) | Part::StepAndOutputs(sid) = e.part {
                self.enter(members, e.member);
                self.scan_open(sid, matches!(e.part, Part::StepAndOutputs(_)))?;
            }
        }
        // The loop's bounds and windows in a block of their own (the scans' columns
        // and carries stay outside, for the other loop).
        self.open("");
        // Iteration i computes level i - skew going up, i + skew going down.
        let (lo, hi) = (self.fresh("ilo"), self.fresh("ihi"));
        let bounds = |e: &Entry| {
            let (m, s) = (e.member, e.skew);
            match ascending {
                true => (format!("ck0_{m} + {s}"), format!("ck1_{m} + {s}")),
                false => (format!("ck0_{m} - {s}"), format!("ck1_{m} - {s}")),
            }
        };
        let (l0, h0) = bounds(first);
        self.line(format!("foehn_idx {lo} = {l0}, {hi} = {h0};"));
        for e in &entries[1..] {
            let (l, h) = bounds(e);
            self.line(format!("if ({l} < {lo}) {lo} = {l};"));
            self.line(format!("if ({h} > {hi}) {hi} = {h};"));
        }
        let windows = if self.level_windows {
            self.plan_windows(members, entries, ascending)
        } else {
            Vec::new()
        };
        let first = match ascending {
            true => lo.clone(),
            false => format!("({hi} - 1)"),
        };
        self.open_windows(&windows, &first, ascending);
        if let Some(n) = self.lockstep_unroll {
            self.line(format!("#pragma unroll {n}"));
        }
        self.open(match ascending {
            true => format!("for (foehn_idx i = {lo}; i < {hi}; ++i)"),
            false => format!("for (foehn_idx i = {hi} - 1; i >= {lo}; --i)"),
        });
        self.load_windows(&windows, ascending);
        for e in entries {
            let m = e.member;
            self.enter(members, m);
            self.line(format!("/* stencil `{}` */", members[m].name));
            self.open("");
            let var = match e.part {
                Part::Outputs => "k",
                Part::ForwardStep(_) | Part::StepAndOutputs(_) => "kc",
            };
            let op = if ascending { '-' } else { '+' };
            self.line(format!("const foehn_idx {var} = i {op} {};", e.skew));
            let [d0, d1] = [0, 1].map(|i| self.dom_bound(4 * m + i));
            let mut loops = 1;
            if self.block_lockstep {
                self.open(format!("if ({var} >= ck0_{m} && {var} < ck1_{m})"));
                self.line(format!(
                    "const foehn_idx ch0 = hb > {d0} ? hb : {d0}, ch1 = hb1 < {d1} ? hb1 : {d1};"
                ));
                self.open("for (foehn_idx h = ch0; h < ch1; ++h)");
                loops = 2;
            } else {
                self.open(format!(
                    "if (h >= {d0} && h < {d1} && {var} >= ck0_{m} && {var} < ck1_{m})"
                ));
            }
            self.entry_at = Some(if ascending { -e.skew } else { e.skew } as i64);
            match e.part {
                Part::Outputs => self.point(members[m])?,
                Part::ForwardStep(sid) => self.scan_step(sid, false)?,
                Part::StepAndOutputs(sid) => self.scan_step(sid, true)?,
            }
            self.entry_at = None;
            for _ in 0..loops {
                self.close();
            }
            self.close();
        }
        self.shift_windows(&windows, ascending);
        self.close();
        self.close();
        self.window.clear();
        Ok(())
    }

    /// Makes member `m` the stencil being emitted, its levels the scans' range.
    fn enter(&mut self, members: &[&'a Stencil], m: usize) {
        self.st = members[m];
        self.col_range = (format!("ck0_{m}"), format!("ck1_{m}"));
    }
}
