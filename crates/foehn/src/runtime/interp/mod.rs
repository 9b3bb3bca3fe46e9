//! The reference interpreter.
//!
//! The interpreter is written to be plainly correct, not fast: for each stencil in
//! order, it evaluates the root expression at every point of the resolved domain
//! (horizontal outer, vertical inner), collects all values, then writes them to the
//! outputs, so a stencil always reads its inputs as they were before it ran. Points
//! outside the domain are never written.
//!
//! Semantics every backend must reproduce:
//! - reductions visit neighbour slots `j = 0..width` in order and skip table entries −1;
//!   an all-skipped row gives the identity (0, −∞, +∞);
//! - reading through a skip value outside a reduction, reading a level outside a
//!   field's levels, or reading a scan result outside the stencil's vertical range is
//!   a runtime error naming the program, stencil and field;
//! - `where` and `concat_where` evaluate only the selected branch;
//! - scans run over the stencil's vertical range (forward from its start, backward
//!   from its end), one column per horizontal point;
//! - floats follow IEEE (min/max as C `fmin`/`fmax`), integers wrap, integer
//!   division by zero is an error; temporaries start as NaN / `i32::MIN` / `false`.

mod eval;

use crate::error::Result;
use crate::ir::{self, Scalar};
use crate::runtime::field::{Args, Field};
use crate::runtime::Backend;
use eval::{Eval, Pt, Value};
use foehn_grid::Grid;
use std::cell::RefCell;
use std::collections::HashMap;

/// The reference interpreter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Interpreter;

impl Backend for Interpreter {
    fn name(&self) -> &str {
        "interp"
    }

    fn execute(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        self.run_ir(program, grid, args)
    }
}

impl Interpreter {
    /// Runs an already specialised program.
    pub fn run_ir(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        args.with_program_fields(program, grid, |fields, nlev, scalars| {
            run_stencils(program, grid, nlev, fields, scalars)
        })
    }
}

fn run_stencils(
    program: &ir::Program,
    grid: &Grid,
    nlev: usize,
    fields: &mut [Field],
    scalars: &[Scalar],
) -> Result<()> {
    for st in &program.stencils {
        let runtime = |message: String| program.runtime_error(st, message);
        let dom = program.resolve_domain(st, grid, nlev)?;
        let values = {
            let ev = Eval {
                prog: program,
                grid,
                nlev,
                fields,
                scalars,
                k_range: dom.k,
                columns: RefCell::new(HashMap::new()),
            };
            let mut values = Vec::with_capacity((dom.h.1 - dom.h.0) * (dom.k.1 - dom.k.0));
            for h in dom.h.0..dom.h.1 {
                for k in dom.k.0..dom.k.1 {
                    values.push(
                        ev.eval(st.root, Pt::at(h, k as i64), None)
                            .map_err(runtime)?,
                    );
                }
            }
            values
        };
        let mut it = values.into_iter();
        for h in dom.h.0..dom.h.1 {
            for k in dom.k.0..dom.k.1 {
                let v = it.next().expect("one value per point");
                for (i, &out) in st.outputs.iter().enumerate() {
                    let s = match (&v, st.outputs.len()) {
                        (Value::S(s), 1) => *s,
                        (Value::T(t), _) => match &t[i] {
                            Value::S(s) => *s,
                            Value::T(_) => {
                                return Err(runtime("internal: nested tuple output".into()))
                            }
                        },
                        _ => return Err(runtime("internal: output arity".into())),
                    };
                    let f = &mut fields[out.0 as usize];
                    let idx = f.flat_index(h, 0, k);
                    f.data_mut().set(idx, s);
                }
            }
        }
    }
    Ok(())
}
