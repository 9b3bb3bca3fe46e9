//! Level-invariant loads of a k-blocked CUDA kernel, emitted once before its level loop.
//!
//! A k-blocked thread walks several levels of one horizontal point. Neighbour indices
//! and fields without a vertical dimension read there are the same on every level, but
//! the compiler cannot move their loads out of the loop: the kernel's field pointers are
//! local variables, so it cannot prove that the loop's stores do not overwrite them. The
//! generator therefore emits those loads itself into a preamble before the loop:
//!
//! - neighbour indices `T[h·W + j]` at a literal slot `j` (a scalar, clamped to 0 when
//!   missing; the check that reports a missing neighbour stays where the index is used);
//! - the index row `T[h·W + 0..W]` of a reduction over `conn` at `h` (an array the
//!   fully unrolled reduction loop indexes);
//! - fields without levels read at `h` or at a hoisted neighbour (a scalar), at a
//!   reduction's slot or at its neighbours (an array of `W`).
//!
//! Every preamble load is in bounds whatever the member domains and branches (indices
//! are clamped), so loading it unconditionally is safe, and the values used are those
//! the loop would have loaded: results are bit for bit the same.

use super::*;

/// A reduction loop whose neighbour row was hoisted.
#[derive(Clone)]
struct Row {
    /// Connectivity width (the loop's trip count).
    width: usize,
    /// The loop's variable holding the current neighbour index.
    nb: String,
    /// The hoisted row of raw indices (may hold -1).
    idx: String,
}

/// The preamble of one k-blocked kernel and what it holds.
pub(super) struct Hoist {
    /// Statements before the level loop, in order of first use.
    lines: Vec<String>,
    /// Load expression → the preamble variable holding it.
    memo: BTreeMap<String, String>,
    /// Horizontal index expressions that do not depend on the level: `h` and the
    /// clamped neighbour indices of the preamble.
    invariant_h: BTreeSet<String>,
    /// Raw variable of each clamped neighbour index (for the use-site check).
    raw: BTreeMap<String, String>,
    /// Hoisted reduction loops by loop variable.
    rows: BTreeMap<String, Row>,
}

impl Hoist {
    /// An empty preamble for a kernel whose own horizontal index is `h`.
    pub(super) fn new() -> Hoist {
        Hoist {
            lines: Vec::new(),
            memo: BTreeMap::new(),
            invariant_h: BTreeSet::from(["h".to_string()]),
            raw: BTreeMap::new(),
            rows: BTreeMap::new(),
        }
    }

    /// The preamble statements.
    pub(super) fn lines(&self) -> &[String] {
        &self.lines
    }
}

impl Gen<'_> {
    /// A fresh variable of the preamble holding `value` (memoised by its text).
    fn hoisted(&mut self, ctype: &str, value: String) -> String {
        if let Some(v) = self.hoist.as_ref().and_then(|h| h.memo.get(&value)) {
            return v.clone();
        }
        let var = self.fresh("hv");
        let hoist = self.hoist.as_mut().expect("hoisting");
        hoist.lines.push(format!("const {ctype} {var} = {value};"));
        hoist.memo.insert(value, var.clone());
        var
    }

    /// A fresh array of the preamble of `width` elements, element `q` being `value(q)`
    /// (memoised by its text).
    fn hoisted_array(&mut self, ctype: &str, width: usize, value: String) -> String {
        let key = format!("[{width}] {value}");
        if let Some(v) = self.hoist.as_ref().and_then(|h| h.memo.get(&key)) {
            return v.clone();
        }
        let var = self.fresh("ha");
        let hoist = self.hoist.as_mut().expect("hoisting");
        hoist.lines.push(format!("{ctype} {var}[{width}];"));
        hoist.lines.push("#pragma unroll".into());
        hoist.lines.push(format!(
            "for (int q = 0; q < {width}; ++q) {var}[q] = {value};"
        ));
        hoist.memo.insert(key, var.clone());
        var
    }

    fn level_invariant(&self, h: &str) -> bool {
        self.hoist
            .as_ref()
            .is_some_and(|x| x.invariant_h.contains(h))
    }

    /// The `j`-th `conn` neighbour index of the level-invariant `h`, hoisted: returns
    /// the clamped index after emitting the missing-neighbour check here; `None` when
    /// not hoisting or `j` is not a literal slot.
    pub(super) fn hoisted_neighbor(
        &mut self,
        conn: Connectivity,
        h: &str,
        j: &str,
        site: usize,
    ) -> Option<String> {
        if !self.level_invariant(h) || !j.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let w = conn.width();
        let raw = self.hoisted("foehn_idx", format!("T_{}[{h}*{w} + {j}]", conn.name()));
        let clamped = self.hoisted("foehn_idx", format!("{raw} < 0 ? 0 : {raw}"));
        let hoist = self.hoist.as_mut().expect("hoisting");
        hoist.invariant_h.insert(clamped.clone());
        hoist.raw.insert(clamped.clone(), raw.clone());
        self.line(format!("if ({raw} < 0) FOEHN_ERR({site});"));
        Some(clamped)
    }

    /// For a reduction over `conn` at the level-invariant `h` with loop variable `j`:
    /// the hoisted index row, registered so that loads in the loop can use it.
    pub(super) fn hoisted_row(
        &mut self,
        conn: Connectivity,
        h: &str,
        j: &str,
        nb: &str,
    ) -> Option<String> {
        if !self.level_invariant(h) {
            return None;
        }
        let w = conn.width();
        let idx = self.hoisted_array("foehn_idx", w, format!("T_{}[{h}*{w} + q]", conn.name()));
        let row = Row {
            width: w,
            nb: nb.to_string(),
            idx: idx.clone(),
        };
        self.hoist
            .as_mut()
            .expect("hoisting")
            .rows
            .insert(j.to_string(), row);
        Some(idx)
    }

    /// A read of field `f` (without levels) at `pt`, hoisted when its point does not
    /// depend on the level; `load(h, j)` is the load text at horizontal index `h` and
    /// slot `j`.
    pub(super) fn hoisted_read(
        &mut self,
        f: FieldId,
        pt: &Pt,
        load: impl Fn(&str, Option<&str>) -> String,
    ) -> Option<String> {
        let hoist = self.hoist.as_ref()?;
        let d = self.prog.field(f);
        if d.ty.dims.vertical.is_some() || d.ty.dtype == DType::Bool {
            return None;
        }
        let t = ctype(d.ty.dtype);
        let sparse = d.ty.dims.local.is_some();
        let literal_j = !sparse
            || pt
                .j
                .as_deref()
                .is_none_or(|j| j.chars().all(|c| c.is_ascii_digit()));
        if hoist.invariant_h.contains(&pt.h) && literal_j {
            return Some(self.hoisted(t, load(&pt.h, pt.j.as_deref())));
        }
        // At a hoisted reduction's slot: the row of the field at `h`.
        if let Some(row) = pt.j.as_ref().and_then(|j| hoist.rows.get(j)).cloned() {
            if hoist.invariant_h.contains(&pt.h) {
                let a = self.hoisted_array(t, row.width, load(&pt.h, Some("q")));
                return Some(format!("{a}[{}]", pt.j.as_deref().unwrap_or("0")));
            }
        }
        // At the neighbour a hoisted reduction's loop visits: the field at the row.
        let (j, row) = hoist
            .rows
            .iter()
            .find(|(_, r)| r.nb == pt.h)
            .map(|(j, r)| (j.clone(), r.clone()))?;
        if sparse {
            return None;
        }
        let at = format!("({}[q] < 0 ? 0 : {}[q])", row.idx, row.idx);
        let a = self.hoisted_array(t, row.width, load(&at, None));
        Some(format!("{a}[{j}]"))
    }
}
