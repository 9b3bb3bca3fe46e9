//! Schedules of `foehn bench`: `unfused`, `optimised`, `tuned`, and their ablations
//! (`optimised/without-fuse/inline8/…`): the optimiser options and the label each sets.

use super::BenchArgs;
use crate::bench_driver::BenchConfig;
use anyhow::{bail, Context, Result};

/// The default optimiser options with the named passes off, and the opt-in passes of
/// `with` on (`column`: column kernels around scans, off by default).
pub(crate) fn without(passes: &[String], with: &[String]) -> Result<foehn::opt::OptOptions> {
    let mut o = foehn::opt::OptOptions::default();
    for p in with {
        match p.as_str() {
            "selecthoistindices" => o.select_hoist = foehn::ir::SelectHoist::Indices,
            "levelfastest" => o.level_fastest = true,
            "stageslots" => o.stage_slots = true,
            "prefetch" => o.level_prefetch = true,
            other => bail!(
                "unknown opt-in pass `{other}` (selecthoistindices, levelfastest, stageslots, prefetch)"
            ),
        }
    }
    for p in passes {
        match p.as_str() {
            "specialise" => o.specialise_regions = false,
            "inline" => o.inline = false,
            "dead" => o.remove_dead = false,
            "fuse" => o.fuse = false,
            "kblock" => o.k_block = 1,
            "idx32" => o.idx32 = false,
            "fixed" => o.fixed_sizes = false,
            "kmajor" => o.k_major = false,
            "hoist" => o.hoist = false,
            "branchlocal" => o.branch_local = false,
            "slotselect" => o.slot_select = false,
            "selecthoist" => o.select_hoist = foehn::ir::SelectHoist::Nothing,
            "windows" => o.level_windows = false,
            "lockstep" => o.lockstep = false,
            "vstream" => o.column_streamed_loads = false,
            "stage" => o.stage = false,
            "fuseclip" => o.fuse_clipped = false,
            "forward" => o.forward = false,
            "column" => o.columns = false,
            "colocal" => o.column_locals = false,
            "afterscan" => o.recompute_after_scan = false,
            "lockreg" => o.lockstep_registers = None,
            other => bail!(
                "unknown pass `{other}` (specialise, inline, dead, fuse, fuseclip, forward, column, colocal, afterscan, lockreg, lockstep, windows, kblock, idx32, fixed, kmajor, hoist, branchlocal, slotselect, selecthoist, stage, vstream)"
            ),
        }
    }
    Ok(o)
}

/// A numbered part of a schedule (`optimised/unroll4`): its prefix and the option its
/// number sets. Labels list them in this order.
type SetNumber = fn(&mut foehn::opt::OptOptions, u32);
const NUMBERED: [(&str, SetNumber); 7] = [
    ("inline", |o, n| o.inline_load_factor = n as usize),
    ("cost", |o, n| o.max_inline_cost = n as usize),
    ("unroll", |o, n| o.unroll = n),
    ("lockreg", |o, n| o.lockstep_registers = Some(n)),
    ("lockunroll", |o, n| o.lockstep_unroll = Some(n)),
    ("maxreg", |o, n| o.kernel_registers = Some(n)),
    ("warpcols", |o, n| o.warp_columns = Some(n)),
];

/// The number of a schedule part `<prefix><N>` (`inline8`, `cost1024`, `unroll4`);
/// `None` when `part` does not start with `prefix`, an error when `N` is not a number.
fn numbered<T: std::str::FromStr>(part: &str, prefix: &str) -> Result<Option<T>>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    part.strip_prefix(prefix)
        .map(|n| {
            n.parse()
                .with_context(|| format!("`{part}`: expected {prefix}<N>"))
        })
        .transpose()
}

/// One benchmark configuration per requested schedule.
pub(super) fn configs(a: &BenchArgs) -> Result<Vec<BenchConfig>> {
    a.schedule
        .iter()
        .map(|s| {
            // `optimised/without-fuse/inline8`: a schedule with its own ablations.
            let mut parts = s.split('/');
            let base = parts.next().unwrap_or_default();
            let mut passes = a.without.clone();
            let mut with = Vec::new();
            let mut recompute = Vec::new();
            // The numbered parts, in the order of `NUMBERED`; the CLI's load factor first.
            let mut numbers: [Option<u32>; NUMBERED.len()] = [None; NUMBERED.len()];
            if let Some(f) = a.inline_load_factor {
                numbers[0] = Some(u32::try_from(f).context("--inline-load-factor")?);
            }
            for p in parts {
                if let Some(x) = p.strip_prefix("without-") {
                    passes.push(x.to_string());
                } else if let Some(x) = p.strip_prefix("with-") {
                    with.push(x.to_string());
                } else if let Some(x) = p.strip_prefix("recompute-") {
                    recompute.push(x.to_string());
                } else if let Some((i, n)) = NUMBERED
                    .iter()
                    .enumerate()
                    .find_map(|(i, (prefix, _))| Some((i, numbered(p, prefix).transpose()?)))
                {
                    numbers[i] = Some(n?);
                } else {
                    bail!(
                        "`{p}` in schedule `{s}`: expected without-<pass>, with-<pass>, recompute-<temporary>, inline<N>, cost<N>, unroll<N>, lockreg<N>, lockunroll<N>, maxreg<N> or warpcols<N>"
                    );
                }
            }
            let mut opts = without(&passes, &with)?;
            let mut label: Vec<String> = with.iter().map(|p| format!("with-{p}")).collect();
            label.extend(passes.iter().map(|p| format!("without-{p}")));
            label.extend(recompute.iter().map(|t| format!("recompute-{t}")));
            opts.recompute.extend(recompute);
            for ((prefix, set), n) in NUMBERED.iter().zip(numbers) {
                if let Some(n) = n {
                    if *prefix == "warpcols" && !(n.is_power_of_two() && n <= 32) {
                        bail!("`warpcols{n}` in schedule `{s}`: columns per warp must be 1, 2, 4, 8, 16 or 32");
                    }
                    set(&mut opts, n);
                    label.push(format!("{prefix}{n}"));
                }
            }
            let (opt, tune) = match base {
                "unfused" => (None, false),
                "optimised" | "optimized" => (Some(opts), false),
                "tuned" => (Some(opts), true),
                other => bail!("unknown schedule `{other}` (unfused, optimised or tuned)"),
            };
            Ok(BenchConfig {
                runs: a.runs,
                verify: !a.no_verify,
                tolerance: a.tolerance,
                opt,
                tune,
                ablation: label.join("+"),
                ..BenchConfig::default()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        bench: BenchArgs,
    }

    #[test]
    fn numbered_schedule_parts_set_their_options_and_label_in_a_fixed_order() {
        let schedule = "optimised/maxreg48/lockunroll4/with-prefetch/unroll2/lockreg64/cost512/inline8/without-fuse";
        let cli = Cli::parse_from(["bench", "--schedule", schedule]);
        let cfg = &configs(&cli.bench).unwrap()[0];
        assert_eq!(
            cfg.ablation,
            "with-prefetch+without-fuse+inline8+cost512+unroll2+lockreg64+lockunroll4+maxreg48"
        );
        let o = cfg.opt.as_ref().unwrap();
        assert_eq!(
            (o.inline_load_factor, o.max_inline_cost, o.unroll),
            (8, 512, 2)
        );
        assert_eq!(o.lockstep_registers, Some(64));
        assert_eq!(o.lockstep_unroll, Some(4));
        assert_eq!(o.kernel_registers, Some(48));
        assert!(o.level_prefetch && !o.fuse);
        let cli = Cli::parse_from([
            "bench",
            "--schedule",
            "optimised/with-levelfastest/warpcols4",
        ]);
        let cfg = &configs(&cli.bench).unwrap()[0];
        assert_eq!(cfg.opt.as_ref().unwrap().warp_columns, Some(4));
        assert_eq!(cfg.ablation, "with-levelfastest+warpcols4");
        let cli = Cli::parse_from(["bench", "--schedule", "optimised/warpcols3"]);
        let err = configs(&cli.bench).unwrap_err().to_string();
        assert!(err.contains("1, 2, 4, 8, 16 or 32"), "{err}");
        // The CLI's load factor stands unless the schedule names its own.
        let cli = Cli::parse_from([
            "bench",
            "--inline-load-factor",
            "3",
            "--schedule",
            "optimised",
        ]);
        assert_eq!(configs(&cli.bench).unwrap()[0].ablation, "inline3");
        // Temporaries to recompute whatever the load factor says.
        let cli = Cli::parse_from([
            "bench",
            "--schedule",
            "optimised/recompute-z_a/with-prefetch",
        ]);
        let cfg = &configs(&cli.bench).unwrap()[0];
        assert_eq!(cfg.ablation, "with-prefetch+recompute-z_a");
        let names: Vec<&str> = cfg
            .opt
            .as_ref()
            .unwrap()
            .recompute
            .iter()
            .map(|s| s.as_str())
            .collect();
        assert_eq!(names, ["z_a"]);
        let err = configs(&Cli::parse_from(["bench", "--schedule", "optimised/maxregx"]).bench);
        assert!(err.unwrap_err().to_string().contains("expected maxreg<N>"));
        let err = configs(&Cli::parse_from(["bench", "--schedule", "optimised/fast"]).bench);
        assert!(err
            .unwrap_err()
            .to_string()
            .contains("expected without-<pass>"));
    }
}
