//! Level-invariant loads of a k-blocked CUDA kernel, emitted once before its level loop.
//!
//! A k-blocked thread walks several levels of one horizontal point. Neighbour indices
//! and fields without a vertical dimension read there are the same on every level, but
//! the compiler cannot move their loads out of the loop: the kernel's field pointers are
//! local variables, so it cannot prove that the loop's stores do not overwrite them. The
//! generator therefore emits those loads itself into a preamble before the loop:
//!
//! - neighbour indices at a literal slot (clamped to 0 when missing; the check that
//!   reports a missing neighbour stays where the index is used);
//! - the index row of a reduction (an array the fully unrolled reduction loop indexes),
//!   also inside another hoisted reduction (an array per enclosing slot);
//! - fields without levels read at any of these points, or at a reduction's slot;
//! - under slot selection (`slots.rs`), the neighbour indices and index rows at the
//!   selected slot: both slots' are hoisted and the level loop picks one with the mask
//!   (a register select instead of a chain of dependent loads after the mask's own
//!   load). Field values there stay in the loop (twice the registers for both slots)
//!   unless `KernelPlan::select_hoist` asks for them too.
//!
//! With branch-local loads on (`KernelPlan::branch_local`), a load first needed inside a
//! data-dependent branch (`where`) is not hoisted: it stays in the branch, loaded on each
//! level the branch is taken (level-invariant, so from cache). A value only a rarely taken
//! branch needs (ICON's extra diffusion near the CFL limit) then holds no register
//! for the whole level loop. Loads already hoisted are reused inside branches.
//!
//! Every preamble load is in bounds whatever the member domains and branches (indices
//! are clamped), so loading it unconditionally is safe, and the values used are those
//! the loop would have loaded: results are bit for bit the same.

use super::*;

/// One dimension of a preamble array: what the body indexes it with.
#[derive(Clone, PartialEq)]
enum Dim {
    /// A hoisted reduction: its loop variable in the body and its width.
    Loop(String, usize),
    /// A slot selected per level (`slots.rs`): the body's variable holding it and the
    /// two slots it may hold (elements 0 and 1 of the array).
    Select(String, u8, u8),
}

impl Dim {
    fn width(&self) -> usize {
        match self {
            Dim::Loop(_, w) => *w,
            Dim::Select(..) => 2,
        }
    }
}

/// A level-invariant horizontal index: a preamble variable, an array with one
/// dimension per enclosing hoisted reduction or selected slot.
#[derive(Clone, PartialEq)]
struct Inv {
    /// The preamble variable (`h` for the own point).
    var: String,
    /// Per enclosing reduction or selection, outermost first.
    dims: Vec<Dim>,
}

impl Inv {
    /// The element in the preamble's loops (indexed by `q0`, `q1`, …).
    fn pre(&self) -> String {
        let mut s = self.var.clone();
        for d in 0..self.dims.len() {
            write!(s, "[q{d}]").unwrap();
        }
        s
    }

    /// The element in the body: indexed by the reductions' loop variables (unrolled,
    /// so constants), a selected slot as a select between its two elements (a runtime
    /// index would move the array to local memory). At most one selection encloses a
    /// point (slot selection does not nest).
    fn body(&self) -> String {
        let element = |pick: usize| {
            let mut s = self.var.clone();
            for d in &self.dims {
                match d {
                    Dim::Loop(j, _) => write!(s, "[{j}]").unwrap(),
                    Dim::Select(..) => write!(s, "[{pick}]").unwrap(),
                }
            }
            s
        };
        match self.dims.iter().find_map(|d| match d {
            Dim::Select(var, first, _) => Some((var, first)),
            Dim::Loop(..) => None,
        }) {
            Some((var, first)) => format!("({var} == {first} ? {} : {})", element(0), element(1)),
            None => element(0),
        }
    }

    /// Whether the body picks this index by a selected slot.
    fn selected(&self) -> bool {
        self.dims.iter().any(|d| matches!(d, Dim::Select(..)))
    }

    /// This index's dimensions and one more.
    fn with(&self, dim: Dim) -> Vec<Dim> {
        let mut dims = self.dims.clone();
        dims.push(dim);
        dims
    }

    /// This index's dimensions and a selected slot held in `var` (`first` where the
    /// mask holds, else `second`), with the slot's text in the preamble's loops.
    fn selecting(&self, var: &str, first: u8, second: u8) -> (Vec<Dim>, String) {
        let q = format!("q{}", self.dims.len());
        let dims = self.with(Dim::Select(var.to_string(), first, second));
        (dims, format!("({q} ? {second} : {first})"))
    }
}

/// The preamble of one k-blocked kernel and what it holds.
pub(super) struct Hoist {
    /// Statements before the level loop, in order of first use.
    lines: Vec<String>,
    /// (dimensions, value) → the preamble variable holding it.
    memo: BTreeMap<(Vec<usize>, String), String>,
    /// Level-invariant horizontal indices by the text the body uses for them.
    invariant: BTreeMap<String, Inv>,
    /// Hoisted reductions by loop variable: the index they reduce at, and their width.
    loops: BTreeMap<String, (Inv, usize)>,
    /// Data-dependent branches the body is being emitted in, when new loads inside them
    /// stay there (branch-local loads); 0 elsewhere.
    branch_depth: u32,
}

impl Hoist {
    /// An empty preamble for a kernel whose own horizontal index is `h`.
    pub(super) fn new() -> Hoist {
        let own = Inv {
            var: "h".into(),
            dims: Vec::new(),
        };
        Hoist {
            lines: Vec::new(),
            memo: BTreeMap::new(),
            invariant: BTreeMap::from([("h".to_string(), own)]),
            loops: BTreeMap::new(),
            branch_depth: 0,
        }
    }

    /// The preamble statements.
    pub(super) fn lines(&self) -> &[String] {
        &self.lines
    }
}

impl Gen<'_> {
    /// Enters (`true`) or leaves a data-dependent branch: with branch-local loads, new
    /// level-invariant loads inside it are not hoisted.
    pub(super) fn data_branch(&mut self, enter: bool) {
        let local = self.branch_local;
        if let Some(h) = self.hoist.as_mut().filter(|_| local) {
            if enter {
                h.branch_depth += 1;
            } else {
                h.branch_depth -= 1;
            }
        }
    }

    /// A preamble variable (an array over `dims`) holding `value`, written in terms of
    /// the preamble's loop indices `q0`, `q1`, …; memoised by its text. `None` inside a
    /// data-dependent branch with branch-local loads, unless already hoisted.
    fn hoisted(&mut self, ctype: &str, dims: Vec<Dim>, value: String) -> Option<Inv> {
        let key = (dims.iter().map(Dim::width).collect::<Vec<_>>(), value);
        let hoist = self.hoist.as_ref()?;
        if let Some(v) = hoist.memo.get(&key) {
            return Some(Inv {
                var: v.clone(),
                dims,
            });
        }
        if hoist.branch_depth > 0 {
            return None;
        }
        let var = self.fresh(if dims.is_empty() { "hv" } else { "ha" });
        let hoist = self.hoist.as_mut().expect("hoisting");
        if dims.is_empty() {
            hoist
                .lines
                .push(format!("const {ctype} {var} = {};", key.1));
        } else {
            let extents: String = dims.iter().map(|d| format!("[{}]", d.width())).collect();
            hoist.lines.push(format!("{ctype} {var}{extents};"));
            let inv = Inv {
                var: var.clone(),
                dims: dims.clone(),
            };
            let mut nest = String::new();
            for (d, dim) in dims.iter().enumerate() {
                let w = dim.width();
                write!(nest, "for (int q{d} = 0; q{d} < {w}; ++q{d}) ").unwrap();
            }
            hoist.lines.push("#pragma unroll".into());
            hoist
                .lines
                .push(format!("{nest}{} = {};", inv.pre(), key.1));
        }
        hoist.memo.insert(key, var.clone());
        Some(Inv { var, dims })
    }

    /// The raw and the clamped `conn` neighbour index at slot `j` of the level-invariant
    /// `at` (`j` a literal or a preamble loop index), over `dims`.
    fn hoisted_index(
        &mut self,
        conn: Connectivity,
        at: &Inv,
        dims: Vec<Dim>,
        j: &str,
    ) -> Option<(Inv, Inv)> {
        let w = conn.width();
        let raw = self.hoisted(
            "foehn_idx",
            dims.clone(),
            format!("T_{}[{}*{w} + {j}]", conn.name(), at.pre()),
        )?;
        let clamped = self.hoisted("foehn_idx", dims, format!("{0} < 0 ? 0 : {0}", raw.pre()))?;
        Some((raw, clamped))
    }

    /// The level-invariant index the body calls `h`, if any.
    fn invariant(&self, h: &str) -> Option<Inv> {
        self.hoist.as_ref()?.invariant.get(h).cloned()
    }

    /// The `j`-th `conn` neighbour of a level-invariant `h`, hoisted: emits the
    /// missing-neighbour check here and returns the clamped index; `None` when not
    /// hoisting, `h` depends on the level or `j` is neither a literal slot nor the
    /// selected slot of a slot selection (both of whose slots are then hoisted).
    pub(super) fn hoisted_neighbor(
        &mut self,
        conn: Connectivity,
        h: &str,
        j: &str,
        site: usize,
    ) -> Option<String> {
        let at = self.invariant(h)?;
        if is_slot(j) {
            let (raw, clamped) = self.hoisted_index(conn, &at, at.dims.clone(), j)?;
            self.line(format!("if ({} < 0) FOEHN_ERR({site});", raw.body()));
            let body = clamped.body();
            let hoist = self.hoist.as_mut().expect("hoisting");
            hoist.invariant.insert(body.clone(), clamped);
            return Some(body);
        }
        let (first, second) = self.selected_slots(j)?;
        if self.select_hoist == SelectHoist::Nothing || at.selected() {
            return None;
        }
        let (dims, slot) = at.selecting(j, first, second);
        let (raw, clamped) = self.hoisted_index(conn, &at, dims, &slot)?;
        let (r, nb) = (self.fresh("nr"), self.fresh("ns"));
        self.line(format!("const foehn_idx {r} = {};", raw.body()));
        self.line(format!("if ({r} < 0) FOEHN_ERR({site});"));
        self.line(format!("const foehn_idx {nb} = {};", clamped.body()));
        let hoist = self.hoist.as_mut().expect("hoisting");
        hoist.invariant.insert(nb.clone(), clamped);
        Some(nb)
    }

    /// For a reduction over `conn` at a level-invariant `h` with loop variable `j` and
    /// neighbour variable `nb`: the hoisted row of raw indices as the body reads it
    /// (`nb` is then level-invariant too).
    pub(super) fn hoisted_row(
        &mut self,
        conn: Connectivity,
        h: &str,
        j: &str,
        nb: &str,
    ) -> Option<String> {
        let at = self.invariant(h)?;
        let w = conn.width();
        let q = format!("q{}", at.dims.len());
        // The loop skips missing neighbours, so in the body `nb` equals the clamped
        // index; the clamped row is what indices nested in the preamble use.
        let (raw, clamped) = self.hoisted_index(conn, &at, at.with(Dim::Loop(j.into(), w)), &q)?;
        let hoist = self.hoist.as_mut().expect("hoisting");
        hoist.invariant.insert(nb.to_string(), clamped);
        hoist.loops.insert(j.to_string(), (at, w));
        Some(raw.body())
    }

    /// The tile position of slot `j` of the own point (see `stage.rs`), hoisted when `j`
    /// is a literal or a hoisted reduction over the own point.
    pub(super) fn hoisted_tile_pos(&mut self, width: usize, j: &str) -> Option<String> {
        let hoist = self.hoist.as_ref()?;
        let own = hoist.invariant.get("h")?.clone();
        let load = |q: &str| format!("ctx->tile_pos[(h - h0)*{width} + {q}]");
        if is_slot(j) {
            return Some(self.hoisted("foehn_idx", Vec::new(), load(j))?.body());
        }
        let (over, w) = hoist.loops.get(j).cloned()?;
        if over != own || w != width {
            return None;
        }
        Some(
            self.hoisted("foehn_idx", own.with(Dim::Loop(j.into(), w)), load("q0"))?
                .body(),
        )
    }

    /// A read of field `f` (without levels) at `pt`, hoisted when its point does not
    /// depend on the level; `load(h, j)` is the load text at horizontal index `h` and
    /// slot `j` (preamble expressions).
    pub(super) fn hoisted_read(
        &mut self,
        f: FieldId,
        pt: &Pt,
        load: impl Fn(&str, Option<&str>) -> String,
    ) -> Option<String> {
        let d = self.prog.field(f);
        if d.ty.dims.vertical.is_some() || d.ty.dtype == DType::Bool {
            return None;
        }
        let t = ctype(d.ty.dtype);
        let sparse = d.ty.dims.local.is_some();
        let at = self.invariant(&pt.h)?;
        // Both slots' values hold registers for the whole level loop: only on request.
        let values = self.select_hoist == SelectHoist::IndicesAndValues;
        if at.selected() && !values {
            return None;
        }
        let j = pt.j.as_deref();
        let hoisted = match j {
            // Dense, or at a literal slot.
            _ if !sparse => self.hoisted(t, at.dims.clone(), load(&at.pre(), None))?,
            Some(j) if is_slot(j) => self.hoisted(t, at.dims.clone(), load(&at.pre(), Some(j)))?,
            // At the selected slot of a slot selection (of the own point): both slots.
            Some(j) if self.selected_slots(j).is_some() => {
                let (first, second) = self.selected_slots(j)?;
                if !values || at.selected() {
                    return None;
                }
                let (dims, slot) = at.selecting(j, first, second);
                self.hoisted(t, dims, load(&at.pre(), Some(&slot)))?
            }
            // At the slot of a hoisted reduction over this very point.
            Some(j) => {
                let (over, w) = self.hoist.as_ref()?.loops.get(j).cloned()?;
                if over != at {
                    return None;
                }
                let q = format!("q{}", at.dims.len());
                self.hoisted(
                    t,
                    at.with(Dim::Loop(j.into(), w)),
                    load(&at.pre(), Some(&q)),
                )?
            }
            None => return None,
        };
        Some(hoisted.body())
    }
}

/// Whether the slot `j` is a literal (an unrolled neighbour) rather than a loop variable.
pub(super) fn is_slot(j: &str) -> bool {
    j.chars().all(|c| c.is_ascii_digit())
}
