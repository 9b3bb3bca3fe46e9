//! Deterministic content hash of a program: BLAKE3 over a canonical byte serialization.
//!
//! The serialization writes every declaration, node and stencil in arena/declaration
//! order with explicit tags, lengths and little-endian integers; floats by bit pattern.
//! Source spans are excluded (moving code does not change the hash); types are
//! excluded (they are a function of the rest). Stencil domain clips are appended in a
//! trailer present only when some stencil is clipped, so unclipped programs hash as
//! before. Bump [`FORMAT_VERSION`] whenever the serialization or the meaning of a node
//! changes.

use super::domain::{Bound, BoundBase, IndexDim, Region};
use super::types::{DType, Dims, FieldType, Scalar, VKind};
use super::{Node, Program};
use foehn_grid::{Connectivity, Location, Zone};
use std::fmt;

/// Version of the canonical serialization (part of every hash).
pub const FORMAT_VERSION: u32 = 1;

/// A 32-byte content hash, printed as 64 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentHash(pub [u8; 32]);

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

struct Canon(blake3::Hasher);

impl Canon {
    fn u8(&mut self, v: u8) {
        self.0.update(&[v]);
    }
    fn u32(&mut self, v: u32) {
        self.0.update(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.update(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.update(s.as_bytes());
    }
    fn loc(&mut self, l: Location) {
        self.u8(Location::ALL.iter().position(|&x| x == l).unwrap() as u8);
    }
    fn conn(&mut self, c: Connectivity) {
        self.u8(Connectivity::ALL.iter().position(|&x| x == c).unwrap() as u8);
    }
    fn vkind(&mut self, v: VKind) {
        self.u8(v as u8);
    }
    fn dtype(&mut self, d: DType) {
        self.u8(d as u8);
    }
    fn opt<T>(&mut self, o: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match o {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                f(self, v)
            }
        }
    }
    fn dims(&mut self, d: &Dims) {
        self.opt(d.horizontal, Self::loc);
        self.opt(d.local, Self::conn);
        self.opt(d.vertical, Self::vkind);
    }
    fn fty(&mut self, t: &FieldType) {
        self.dims(&t.dims);
        self.dtype(t.dtype);
    }
    fn scalar(&mut self, s: &Scalar) {
        match *s {
            Scalar::F64(x) => {
                self.u8(0);
                self.0.update(&x.to_bits().to_le_bytes());
            }
            Scalar::F32(x) => {
                self.u8(1);
                self.u32(x.to_bits());
            }
            Scalar::I32(x) => {
                self.u8(2);
                self.u32(x as u32);
            }
            Scalar::Bool(b) => {
                self.u8(3);
                self.u8(b as u8);
            }
        }
    }
    fn zone(&mut self, z: Zone) {
        let (tag, n) = match z {
            Zone::LateralBoundary(n) => (0, n),
            Zone::Nudging(n) => (1, n),
            Zone::Interior => (2, 0),
            Zone::Local => (3, 0),
            Zone::Halo(n) => (4, n),
            Zone::End => (5, 0),
        };
        self.u8(tag);
        self.u8(n);
    }
    fn bound(&mut self, b: Bound) {
        match b.base {
            BoundBase::Zero => self.u8(0),
            BoundBase::Nlev => self.u8(1),
            BoundBase::Size => self.u8(2),
            BoundBase::ZoneStart(z) => {
                self.u8(3);
                self.zone(z)
            }
            BoundBase::ZoneEnd(z) => {
                self.u8(4);
                self.zone(z)
            }
        }
        self.i64(b.offset);
    }
    fn index_dim(&mut self, d: IndexDim) {
        match d {
            IndexDim::H(l) => {
                self.u8(0);
                self.loc(l)
            }
            IndexDim::V(v) => {
                self.u8(1);
                self.vkind(v)
            }
        }
    }
    fn region(&mut self, r: &Region) {
        self.u32(r.intervals.len() as u32);
        for iv in &r.intervals {
            self.index_dim(iv.dim);
            self.opt(iv.lo, Self::bound);
            self.opt(iv.hi, Self::bound);
        }
    }
    fn ids(&mut self, ids: &[super::ExprId]) {
        self.u32(ids.len() as u32);
        for id in ids {
            self.u32(id.0);
        }
    }
    fn node(&mut self, n: &Node) {
        // The tag is the variant's position; payload follows, then the children.
        match n {
            Node::Field(f) => {
                self.u8(0);
                self.u32(f.0)
            }
            Node::Scalar(s) => {
                self.u8(1);
                self.u32(s.0)
            }
            Node::Const(c) => {
                self.u8(2);
                self.scalar(c)
            }
            Node::HIndex(l) => {
                self.u8(3);
                self.loc(*l)
            }
            Node::KIndex(v) => {
                self.u8(4);
                self.vkind(*v)
            }
            Node::Unary(op, _) => {
                self.u8(5);
                self.u8(*op as u8)
            }
            Node::Binary(op, _, _) => {
                self.u8(6);
                self.u8(*op as u8)
            }
            Node::Where(..) => self.u8(7),
            Node::ConcatWhere(r, _, _) => {
                self.u8(8);
                self.region(r)
            }
            Node::Cast(t, _) => {
                self.u8(9);
                self.dtype(*t)
            }
            Node::Shift(c, _) => {
                self.u8(10);
                self.conn(*c)
            }
            Node::Neighbor(c, s, _) => {
                self.u8(11);
                self.conn(*c);
                self.u8(*s)
            }
            Node::Pick(s, _) => {
                self.u8(12);
                self.u8(*s)
            }
            Node::Reduce(op, c, _) => {
                self.u8(13);
                self.u8(*op as u8);
                self.conn(*c)
            }
            Node::KShift(k, _) => {
                self.u8(14);
                self.u32(*k as u32)
            }
            Node::KOffset(..) => self.u8(15),
            Node::VCast(v, _) => {
                self.u8(16);
                self.vkind(*v)
            }
            Node::Broadcast(d, _) => {
                self.u8(17);
                self.dims(d)
            }
            Node::Tuple(_) => self.u8(18),
            Node::Get(i, _) => {
                self.u8(19);
                self.u32(*i)
            }
            Node::Scan {
                id,
                dir,
                kind,
                init,
                ..
            } => {
                self.u8(20);
                self.u32(*id);
                self.u8(*dir as u8);
                self.vkind(*kind);
                self.u32(init.len() as u32)
            }
            Node::Carry { scan, index } => {
                self.u8(21);
                self.u32(*scan);
                self.u32(*index)
            }
        }
        self.ids(&n.children());
    }
}

impl Program {
    /// The deterministic content hash of this program variant (name, variant,
    /// declarations, nodes, stencils; not source spans).
    pub fn content_hash(&self) -> ContentHash {
        let mut c = Canon(blake3::Hasher::new());
        c.str("foehn-ir");
        c.u32(FORMAT_VERSION);
        c.str(&self.name);
        c.u32(self.variant.0.len() as u32);
        for (k, v) in &self.variant.0 {
            c.str(k);
            match v {
                super::StaticValue::Bool(b) => {
                    c.u8(0);
                    c.u8(*b as u8)
                }
                super::StaticValue::I32(i) => {
                    c.u8(1);
                    c.u32(*i as u32)
                }
            }
        }
        c.u32(self.fields.len() as u32);
        for f in &self.fields {
            c.str(&f.name);
            c.fty(&f.ty);
            c.u8(f.role as u8);
        }
        c.u32(self.scalars.len() as u32);
        for s in &self.scalars {
            c.str(&s.name);
            c.dtype(s.dtype);
        }
        c.u32(self.nodes.len() as u32);
        for n in &self.nodes {
            c.node(n);
        }
        c.u32(self.stencils.len() as u32);
        for s in &self.stencils {
            c.str(&s.name);
            c.u32(s.outputs.len() as u32);
            for o in &s.outputs {
                c.u32(o.0);
            }
            c.opt(s.location, Canon::loc);
            c.opt(s.vertical, Canon::vkind);
            c.bound(s.domain.horizontal.0);
            c.bound(s.domain.horizontal.1);
            c.bound(s.domain.vertical.0);
            c.bound(s.domain.vertical.1);
            c.u32(s.root.0);
        }
        // Domain clips go in a trailer written only when some stencil is clipped, so the
        // hash of a program without clips is what it was before clips existed.
        let clipped: Vec<(usize, &super::Stencil)> = self
            .stencils
            .iter()
            .enumerate()
            .filter(|(_, s)| s.domain.is_clipped())
            .collect();
        if !clipped.is_empty() {
            c.str("clips");
            c.u32(clipped.len() as u32);
            for (i, s) in clipped {
                c.u32(i as u32);
                for (lo, hi) in [s.domain.clip_horizontal, s.domain.clip_vertical] {
                    c.opt(lo, Canon::bound);
                    c.opt(hi, Canon::bound);
                }
            }
        }
        ContentHash(*c.0.finalize().as_bytes())
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn clips_are_hashed_only_when_present() {
        use crate::dsl::prelude::*;
        let p = ProgramDef::new("divergence", |b| {
            let vn = b.input("vn", (EDGE, K), F64);
            let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
            let div = b.output("div", (CELL, K), F64);
            b.stencil(
                "divergence",
                &div,
                (vn.shift(C2E) * geofac_div).sum_over(C2E),
            );
        })
        .specialize(&Variant::new())
        .unwrap();
        let base = p.content_hash();
        let mut same = p.clone();
        same.stencils[0].domain.clip_vertical = (None, None);
        assert_eq!(same.content_hash(), base);
        let clip = (Some(Bound::index(1)), None);
        let (mut h, mut v) = (p.clone(), p);
        h.stencils[0].domain.clip_horizontal = clip;
        v.stencils[0].domain.clip_vertical = clip;
        assert_ne!(h.content_hash(), base);
        assert_ne!(v.content_hash(), base);
        assert_ne!(h.content_hash(), v.content_hash());
    }
}
