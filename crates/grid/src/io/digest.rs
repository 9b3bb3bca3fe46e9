//! A deterministic content hash of a grid, formatted as a UUID for `uuidOfHGrid`.
//!
//! The hash covers everything a grid file defines a grid by (name, kind, space, the eight
//! stored neighbour tables, the point positions and `refin_ctrl`); geometry is derived
//! from these. The reader recomputes it to detect truncated or modified foehn files.

use crate::grid::{Grid, GridKind};
use crate::io::names::TABLES;
use crate::space::{Space, Vec3};
use crate::Location;

/// FNV-1a over 64-bit words with a 128-bit state: every change of a single word
/// changes the result (each step is a bijection of the state).
struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ u128::from(w)).wrapping_mul(Self::PRIME);
    }

    fn len(&mut self, n: usize) {
        self.word(n as u64);
    }

    fn str(&mut self, s: &str) {
        self.len(s.len());
        for chunk in s.as_bytes().chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.word(u64::from_le_bytes(word));
        }
    }

    fn f64(&mut self, x: f64) {
        self.word(x.to_bits());
    }

    fn ints(&mut self, xs: &[i32]) {
        self.len(xs.len());
        xs.iter().for_each(|&x| self.word(u64::from(x as u32)));
    }

    fn points(&mut self, ps: &[Vec3]) {
        self.len(ps.len());
        ps.iter().flatten().for_each(|&x| self.f64(x));
    }
}

/// The grid's content hash as a version-8 (custom) UUID string.
pub(crate) fn grid_uuid(grid: &Grid) -> String {
    let mut h = Fnv128(Fnv128::OFFSET);
    h.str("foehn grid v1");
    h.str(&grid.name);
    match &grid.kind {
        GridKind::Icosahedral { root, bisections } => {
            h.str("icosahedral");
            h.word(u64::from(*root));
            h.word(u64::from(*bisections));
        }
        GridKind::Torus(t) => {
            h.str("torus");
            h.len(t.nx);
            h.len(t.ny);
            h.f64(t.dx);
        }
        GridKind::LimitedArea {
            parent,
            root,
            bisections,
        } => {
            h.str("limited_area");
            h.str(parent);
            h.word(u64::from(*root));
            h.word(u64::from(*bisections));
        }
    }
    match grid.space {
        Space::Sphere { radius } => {
            h.str("sphere");
            h.f64(radius);
        }
        Space::Torus { length, height } => {
            h.str("torus");
            h.f64(length);
            h.f64(height);
        }
    }
    for t in &TABLES {
        h.ints(grid.topology.table(t.conn).as_slice());
    }
    for loc in Location::ALL {
        h.ints(grid.zones.of(loc).refin_ctrl());
    }
    h.points(&grid.points.vertex);
    h.points(&grid.points.cell);
    h.points(&grid.points.edge);
    format_uuid(h.0)
}

/// Formats 128 bits as a UUID with version 8 and the RFC 4122 variant.
fn format_uuid(bits: u128) -> String {
    let bits = (bits & !(0xf << 76) & !(0x3 << 62)) | (0x8 << 76) | (0x2 << 62);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        bits >> 96,
        (bits >> 80) & 0xffff,
        (bits >> 64) & 0xffff,
        (bits >> 48) & 0xffff,
        bits & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::format_uuid;

    #[test]
    fn uuid_layout() {
        let s = format_uuid(u128::MAX);
        assert_eq!(s, "ffffffff-ffff-8fff-bfff-ffffffffffff");
        assert_eq!(format_uuid(0), "00000000-0000-8000-8000-000000000000");
    }
}
