//! The readable text form of the IR (what `foehn explain` prints).
//!
//! ```text
//! program divergence [variant: default]
//!   in   vn         : [Edge, K] f64
//!   in   geofac_div : [Cell, C2E] f64
//!   out  div        : [Cell, K] f64
//!   stencil divergence -> div on Cell [0, size) x K [0, size)
//!     %0 = field vn                          : [Edge, K] f64
//!     %1 = shift C2E %0                      : [Cell, C2E, K] f64
//!     ...
//!     return %3
//! ```
//!
//! A clipped domain shows its clip after the range: `K [0, size) clip [.., 1)`.

use super::{Node, Program};
use std::fmt::{self, Write};

impl Program {
    /// The right-hand side of node `id` in the listing (`%1 + %2`, `shift C2E %0`, ...).
    pub fn node_text(&self, id: super::ExprId) -> String {
        let p = |e: &super::ExprId| format!("%{}", e.0);
        match self.node(id) {
            Node::Field(f) => format!("field {}", self.field(*f).name),
            Node::Scalar(s) => format!("scalar {}", self.scalars[s.0 as usize].name),
            Node::Const(c) => format!("const {c}"),
            Node::HIndex(l) => format!("index {l}"),
            Node::KIndex(v) => format!("index {v}"),
            Node::Unary(op, a) => format!("{} {}", op.name(), p(a)),
            Node::Binary(op, a, b) if op.is_function() => {
                format!("{}({}, {})", op.symbol(), p(a), p(b))
            }
            Node::Binary(op, a, b) => format!("{} {} {}", p(a), op.symbol(), p(b)),
            Node::Where(m, a, b) => format!("where({}, {}, {})", p(m), p(a), p(b)),
            Node::ConcatWhere(r, a, b) => format!("concat_where({r}, {}, {})", p(a), p(b)),
            Node::Cast(t, a) => format!("cast {t} {}", p(a)),
            Node::Shift(c, a) => format!("shift {c} {}", p(a)),
            Node::Neighbor(c, s, a) => format!("shift {c}[{s}] {}", p(a)),
            Node::Pick(s, a) => format!("pick [{s}] {}", p(a)),
            Node::Reduce(op, c, a) => format!("{} {c} {}", op.name(), p(a)),
            Node::KShift(n, a) => format!("kshift {n:+} {}", p(a)),
            Node::KOffset(a, o) => format!("koffset {} by {}", p(a), p(o)),
            Node::VCast(v, a) => format!("as {v} {}", p(a)),
            Node::Broadcast(d, a) => format!("broadcast {d} {}", p(a)),
            Node::Tuple(v) => format!("({})", v.iter().map(p).collect::<Vec<_>>().join(", ")),
            Node::Get(i, a) => format!("{}.{i}", p(a)),
            Node::Scan {
                id,
                dir,
                kind,
                init,
                body,
            } => format!(
                "scan#{id} {kind} {:?} init ({}) body ({})",
                dir,
                init.iter().map(p).collect::<Vec<_>>().join(", "),
                body.iter().map(p).collect::<Vec<_>>().join(", ")
            ),
            Node::Carry { scan, index } => format!("carry#{scan}.{index}"),
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "program {} [variant: {}]", self.name, self.variant)?;
        let width = self
            .fields
            .iter()
            .map(|d| d.name.len())
            .chain(self.scalars.iter().map(|s| s.name.len()))
            .max()
            .unwrap_or(0);
        for d in &self.fields {
            writeln!(f, "  {:<5} {:<width$} : {}", d.role.name(), d.name, d.ty)?;
        }
        for s in &self.scalars {
            writeln!(f, "  {:<5} {:<width$} : {}", "scalar", s.name, s.dtype)?;
        }
        for st in &self.stencils {
            let outs: Vec<&str> = st
                .outputs
                .iter()
                .map(|&o| self.field(o).name.as_str())
                .collect();
            let clip = |c: (Option<super::Bound>, Option<super::Bound>)| {
                if c == (None, None) {
                    String::new()
                } else {
                    format!(" clip {}", super::domain::clip_text(c))
                }
            };
            let mut dom = match st.location {
                Some(l) => format!(
                    "{l} [{}, {}){}",
                    st.domain.horizontal.0,
                    st.domain.horizontal.1,
                    clip(st.domain.clip_horizontal)
                ),
                None => "one column".to_string(),
            };
            if let Some(v) = st.vertical {
                write!(
                    dom,
                    " x {v} [{}, {}){}",
                    st.domain.vertical.0,
                    st.domain.vertical.1,
                    clip(st.domain.clip_vertical)
                )?;
            }
            writeln!(f, "  stencil {} -> {} on {}", st.name, outs.join(", "), dom)?;
            for id in self.reachable(st.root) {
                let text = self.node_text(id);
                writeln!(f, "    %{:<3} = {:<40} : {}", id.0, text, self.ty(id))?;
            }
            writeln!(f, "    return %{}", st.root.0)?;
        }
        Ok(())
    }
}
