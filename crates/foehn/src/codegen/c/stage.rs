//! Staging in shared memory (CUDA): a producer the inliner marked `stage` and a kernel
//! reads through the neighbours of a connectivity is computed once per block, for every
//! point some thread of the block reaches, instead of at every neighbour of every point.
//!
//! The runtime gives each block the list of producer points its threads reach
//! (`ctx->tile_list`, `tile_count`, padded to `tile_m` per block) and, per consumer
//! point and slot, the position of that neighbour in its block's list
//! (`ctx->tile_pos`). The kernel first fills `foehn_tile[tile][level][position]` for
//! its levels, synchronises, then evaluates the consumer; a staged read inside a
//! reduction over the connectivity at the own point (missing neighbours are skipped
//! there) reads the tile. Any other read of the staged value evaluates it where it is,
//! as inlining would. The inliner stages only producers whose evaluation cannot fail a
//! run-time check anywhere, so computing them at every listed point reports nothing the
//! program as written would not.

use super::*;

/// The staged values of one kernel.
pub(super) struct Staging {
    /// The connectivity the consumer reads them through.
    pub(super) conn: Connectivity,
    /// `stage` nodes → their tile.
    pub(super) tiles: BTreeMap<ExprId, usize>,
}

/// The tiles of a kernel computing `st` alone that stages (the schedule says so, and
/// `Program::stageable` holds): one per `stage` node read through a neighbour shift.
pub(super) fn staging(prog: &Program, st: &Stencil) -> Option<Staging> {
    let conn = prog.staging_connectivity(st)?;
    let staged: BTreeSet<ExprId> = prog.staged_reads(st.root).iter().map(|r| r.1).collect();
    let tiles = staged
        .into_iter()
        .enumerate()
        .map(|(i, a)| (a, i))
        .collect();
    Some(Staging { conn, tiles })
}

impl Gen<'_> {
    /// Fills the tiles for this block's levels `[kb0, kb1)` and synchronises.
    pub(super) fn fill_tiles(&mut self) -> Result<(), CodegenError> {
        let Some(staging) = self.stage.take() else {
            return Ok(());
        };
        let kb = self.k_block;
        self.line("extern __shared__ double foehn_tile[];");
        self.line("const foehn_idx TM = ctx->tile_m;");
        self.open("");
        self.line("const int32_t* TL = ctx->tile_list + (foehn_idx)HB * TM;");
        self.line("const int32_t TN = ctx->tile_count[HB];");
        self.open("for (int32_t ti = (int32_t)threadIdx.x; ti < TN; ti += (int32_t)blockDim.x)");
        self.line("const foehn_idx p = TL[ti];");
        self.open("for (foehn_idx k = kb0; k < kb1; ++k)");
        let pt = Pt {
            h: "p".into(),
            loc: Some(staging.conn.to()),
            k: KPos {
                base: "k".into(),
                off: 0,
            },
            j: None,
            guard: None,
            own_h: false,
        };
        for (&id, &s) in &staging.tiles {
            let v = self.emit(id, &pt)?;
            self.line(format!(
                "foehn_tile[({s}*{kb} + (k - kb0))*TM + ti] = {};",
                v.s()
            ));
        }
        self.close();
        self.close();
        self.close();
        self.line("__syncthreads();");
        self.stage = Some(staging);
        Ok(())
    }

    /// A read of `Shift(conn, a)` at `pt` served from a tile, if `a` is staged and the
    /// read is at the own point and level inside a reduction over `conn`.
    pub(super) fn tile_read(&mut self, conn: Connectivity, a: ExprId, pt: &Pt) -> Option<String> {
        let staging = self.stage.as_ref()?;
        let s = *staging.tiles.get(&a)?;
        let (gc, gh, gj, _) = pt.guard.as_ref()?;
        if conn != staging.conn || *gc != conn || *gh != "h" || pt.h != "h" || pt.k.off != 0 {
            return None;
        }
        let j = gj.clone();
        let w = conn.width();
        let pos = self
            .hoisted_tile_pos(w, &j)
            .unwrap_or_else(|| format!("ctx->tile_pos[(h - h0)*{w} + {j}]"));
        Some(format!(
            "foehn_tile[({s}*{} + (k - kb0))*TM + {pos}]",
            self.k_block
        ))
    }

    /// A read of `Neighbor(conn, slot, a)` at `pt` served from a tile, if `a` is staged
    /// and the read is at the own point and level. The block's list holds every
    /// neighbour of its points, so the tile has it; a missing neighbour is reported as
    /// the program as written reports it.
    pub(super) fn tile_read_slot(
        &mut self,
        conn: Connectivity,
        slot: u8,
        a: ExprId,
        pt: &Pt,
    ) -> Result<Option<String>, CodegenError> {
        let Some(staging) = self.stage.as_ref() else {
            return Ok(None);
        };
        let Some(&s) = staging.tiles.get(&a) else {
            return Ok(None);
        };
        if conn != staging.conn || pt.h != "h" || pt.k.off != 0 || pt.k.base != "k" {
            return Ok(None);
        }
        // The check of the program as written (reads through a missing neighbour fail).
        self.neighbor_index(conn, pt, &slot.to_string())?;
        let w = conn.width();
        let pos = self
            .hoisted_tile_pos(w, &slot.to_string())
            .unwrap_or_else(|| format!("ctx->tile_pos[(h - h0)*{w} + {slot}]"));
        Ok(Some(format!(
            "foehn_tile[({s}*{} + (k - kb0))*TM + {pos}]",
            self.k_block
        )))
    }
}
