//! Pointwise evaluation of IR expressions.

use crate::ir::semantics::{binary, unary};
use crate::ir::{self, BinaryOp, DType, ExprId, Node, ReduceOp, Scalar, ScanDir};
use crate::runtime::field::Field;
use foehn_grid::{Grid, SKIP};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A value: a scalar or a tuple.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    S(Scalar),
    T(Rc<[Value]>),
}

impl Value {
    fn scalar(&self) -> Result<Scalar, String> {
        match self {
            Value::S(s) => Ok(*s),
            Value::T(_) => Err("internal: tuple where a scalar was expected".into()),
        }
    }
}

/// The point an expression is evaluated at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pt {
    pub(crate) h: usize,
    pub(crate) k: i64,
    pub(crate) j: Option<usize>,
}

impl Pt {
    /// Point `(h, k)` outside any neighbour loop.
    pub(crate) fn at(h: usize, k: i64) -> Self {
        Pt { h, k, j: None }
    }
}

type Column = Rc<Vec<Value>>;

/// Evaluation context of one stencil.
pub(crate) struct Eval<'a> {
    pub(crate) prog: &'a ir::Program,
    pub(crate) grid: &'a Grid,
    pub(crate) nlev: usize,
    pub(crate) fields: &'a [Field],
    pub(crate) scalars: &'a [Scalar],
    pub(crate) k_range: (usize, usize),
    pub(crate) columns: RefCell<HashMap<ExprId, (usize, Column)>>,
}

impl Eval<'_> {
    pub(crate) fn eval(
        &self,
        id: ExprId,
        pt: Pt,
        carry: Option<&[Value]>,
    ) -> Result<Value, String> {
        let s = |x: Scalar| Ok(Value::S(x));
        match self.prog.node(id) {
            Node::Field(f) => s(self.read(*f, pt)?),
            Node::Scalar(i) => s(self.scalars[i.0 as usize]),
            Node::Const(c) => s(*c),
            Node::HIndex(_) => s(Scalar::I32(pt.h as i32)),
            Node::KIndex(_) => s(Scalar::I32(pt.k as i32)),
            Node::Unary(op, a) => s(unary(*op, self.eval(*a, pt, carry)?.scalar()?)),
            Node::Binary(op, a, b) => {
                let x = self.eval(*a, pt, carry)?.scalar()?;
                let y = self.eval(*b, pt, carry)?.scalar()?;
                s(binary(*op, x, y)?)
            }
            Node::Where(m, a, b) => match self.eval(*m, pt, carry)?.scalar()? {
                Scalar::Bool(true) => self.eval(*a, pt, carry),
                _ => self.eval(*b, pt, carry),
            },
            Node::ConcatWhere(r, a, b) => {
                if r.contains(None, pt.h, pt.k, self.grid, self.nlev)? {
                    self.eval(*a, pt, carry)
                } else {
                    self.eval(*b, pt, carry)
                }
            }
            Node::Cast(t, a) => s(self.eval(*a, pt, carry)?.scalar()?.cast(*t)),
            Node::Shift(conn, a) => {
                let j =
                    pt.j.ok_or("internal: shift evaluated without a neighbour slot")?;
                let n = self.neighbor(*conn, pt.h, j)?;
                self.eval(*a, Pt::at(n, pt.k), carry)
            }
            Node::Neighbor(conn, slot, a) => {
                let n = self.neighbor(*conn, pt.h, *slot as usize)?;
                self.eval(*a, Pt::at(n, pt.k), carry)
            }
            Node::Pick(slot, a) => self.eval(
                *a,
                Pt {
                    j: Some(*slot as usize),
                    ..pt
                },
                carry,
            ),
            Node::Reduce(op, conn, a) => {
                let table = self.grid.topology.table(*conn);
                let dtype = self.prog.ty(id).field().map_or(DType::F64, |t| t.dtype);
                let mut acc = identity(*op, dtype);
                for j in 0..table.width() {
                    if table.get(pt.h, j) == SKIP {
                        continue;
                    }
                    let v = self.eval(*a, Pt { j: Some(j), ..pt }, carry)?.scalar()?;
                    acc = combine(*op, acc, v)?;
                }
                s(acc)
            }
            Node::KShift(n, a) => self.eval(
                *a,
                Pt {
                    k: pt.k + *n as i64,
                    ..pt
                },
                carry,
            ),
            Node::KOffset(a, o) => {
                let off = match self.eval(*o, pt, carry)?.scalar()? {
                    Scalar::I32(v) => v as i64,
                    other => return Err(format!("internal: vertical offset {other} is not i32")),
                };
                self.eval(
                    *a,
                    Pt {
                        k: pt.k + off,
                        ..pt
                    },
                    carry,
                )
            }
            Node::VCast(_, a) | Node::Broadcast(_, a) => self.eval(*a, pt, carry),
            Node::Tuple(items) => {
                let vals = items
                    .iter()
                    .map(|&x| self.eval(x, pt, carry))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Value::T(vals.into()))
            }
            Node::Get(i, a) => match self.eval(*a, pt, carry)? {
                Value::T(v) => Ok(v[*i as usize].clone()),
                Value::S(_) => Err("internal: element of a non-tuple".into()),
            },
            Node::Carry { index, .. } => {
                let c = carry.ok_or("internal: carry outside a scan")?;
                Ok(c[*index as usize].clone())
            }
            Node::Scan { .. } => {
                let col = self.column(id, pt.h)?;
                let (k0, k1) = self.k_range;
                if pt.k < k0 as i64 || pt.k >= k1 as i64 {
                    return Err(format!(
                        "scan result read at level {}, outside the stencil's vertical range [{k0}, {k1})",
                        pt.k
                    ));
                }
                Ok(col[(pt.k - k0 as i64) as usize].clone())
            }
        }
    }

    fn read(&self, f: ir::FieldId, pt: Pt) -> Result<Scalar, String> {
        let field = &self.fields[f.0 as usize];
        let dims = field.dims();
        let mut k = 0;
        if dims.vertical.is_some() {
            let levels = field.levels() as i64;
            if pt.k < 0 || pt.k >= levels {
                return Err(format!(
                    "field `{}` read at level {} (point {}), outside its levels [0, {levels})",
                    self.prog.field(f).name,
                    pt.k,
                    pt.h
                ));
            }
            k = pt.k as usize;
        }
        let j = if dims.local.is_some() {
            pt.j.ok_or("internal: local field read without a slot")?
        } else {
            0
        };
        Ok(field.data().get(field.flat_index(pt.h, j, k)))
    }

    fn neighbor(
        &self,
        conn: foehn_grid::Connectivity,
        h: usize,
        j: usize,
    ) -> Result<usize, String> {
        let n = self.grid.topology.table(conn).get(h, j);
        if n == SKIP {
            return Err(format!(
                "read through a skip value: {conn} neighbour {j} of {} {h} does not exist (−1); \
                 outside a reduction a missing neighbour has no value",
                conn.from()
            ));
        }
        Ok(n as usize)
    }

    /// The scan column at horizontal point `h` over the stencil's vertical range, cached.
    fn column(&self, id: ExprId, h: usize) -> Result<Column, String> {
        if let Some((ch, col)) = self.columns.borrow().get(&id) {
            if *ch == h {
                return Ok(col.clone());
            }
        }
        let Node::Scan {
            dir, init, body, ..
        } = self.prog.node(id)
        else {
            unreachable!()
        };
        let (k0, k1) = self.k_range;
        let n = k1 - k0;
        let start = Pt::at(h, k0 as i64);
        let mut carry: Vec<Value> = init
            .iter()
            .map(|&x| self.eval(x, start, None))
            .collect::<Result<_, _>>()?;
        let mut col = vec![Value::S(Scalar::Bool(false)); n];
        for step in 0..n {
            let k = match dir {
                ScanDir::Forward => k0 + step,
                ScanDir::Backward => k1 - 1 - step,
            };
            let pt = Pt::at(h, k as i64);
            let next: Vec<Value> = body
                .iter()
                .map(|&x| self.eval(x, pt, Some(&carry)))
                .collect::<Result<_, _>>()?;
            col[k - k0] = if next.len() == 1 {
                next[0].clone()
            } else {
                Value::T(next.clone().into())
            };
            carry = next;
        }
        let col = Rc::new(col);
        self.columns.borrow_mut().insert(id, (h, col.clone()));
        Ok(col)
    }
}

fn identity(op: ReduceOp, dtype: DType) -> Scalar {
    match (op, dtype) {
        (ReduceOp::Sum, t) => Scalar::F64(0.0).cast(t),
        (ReduceOp::Max, DType::I32) => Scalar::I32(i32::MIN),
        (ReduceOp::Min, DType::I32) => Scalar::I32(i32::MAX),
        (ReduceOp::Max, t) => Scalar::F64(f64::NEG_INFINITY).cast(t),
        (ReduceOp::Min, t) => Scalar::F64(f64::INFINITY).cast(t),
    }
}

fn combine(op: ReduceOp, acc: Scalar, v: Scalar) -> Result<Scalar, String> {
    binary(
        match op {
            ReduceOp::Sum => BinaryOp::Add,
            ReduceOp::Max => BinaryOp::Max,
            ReduceOp::Min => BinaryOp::Min,
        },
        acc,
        v,
    )
}
