//! `foehn exec`: run any catalog program on given data (NumPy `.npz`, arrays in ICON4Py
//! dimension order) and a grid (name or ICON grid file), writing the outputs to `.npz`.

use crate::bench_cmd::{catalog, select};
use crate::explain_cmd::parse_variant;
use crate::grid_load;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use foehn::codegen::Sizes;
use foehn::ir::{DType, Role, Scalar, Schedule};
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::npy::{load_npz, save_npz, Array};
use foehn::runtime::field::{Args, Field};
use foehn::runtime::interp::Interpreter;
use foehn_cache::Cache;
use std::path::PathBuf;

/// Options of `foehn exec`.
#[derive(ClapArgs)]
pub struct ExecArgs {
    /// Program name (see `foehn bench --help`).
    program: String,
    /// Grid name or ICON grid file.
    #[arg(long)]
    grid: String,
    /// Input arrays (`.npz`): one per argument field (ICON4Py dimension order, row-major),
    /// and 0-d arrays for runtime scalars (or use --scalar).
    #[arg(long)]
    inputs: PathBuf,
    /// Where to write the program's output and in/out fields (`.npz`).
    #[arg(long)]
    output: PathBuf,
    /// Static arguments `name=value`; every static argument must be given.
    #[arg(long)]
    variant: Vec<String>,
    /// Runtime scalars `name=value` (override the `.npz`).
    #[arg(long)]
    scalar: Vec<String>,
    /// Backend: interp, cpu or cuda.
    #[arg(long, default_value = "cpu")]
    backend: String,
}

/// Runs `foehn exec`.
pub fn run(a: ExecArgs) -> Result<()> {
    let entries = catalog();
    let entry = select(&entries, std::slice::from_ref(&a.program))?[0];
    let variants = entry.variants_with(&parse_variant(&a.variant)?)?;
    if variants.len() != 1 {
        let listed: Vec<String> = variants.iter().map(|v| format!("[{v}]")).collect();
        bail!(
            "program `{}` has {} variants ({}): choose one with --variant name=value",
            a.program,
            variants.len(),
            listed.join(", ")
        );
    }
    let ir = entry.specialize(&variants[0])?;
    let grid = grid_load::load(&a.grid)?;
    let arrays = load_npz(&a.inputs)?;
    let mut args = Args::new();
    for d in ir.fields.iter().filter(|d| d.role != Role::Temp) {
        let arr = arrays.get(&d.name).with_context(|| {
            format!(
                "{}: no array `{}` ({} field {})",
                a.inputs.display(),
                d.name,
                d.role.name(),
                d.ty
            )
        })?;
        let (have, want) = (arr.data.dtype(), d.ty.dtype);
        if have != want {
            bail!(
                "{}: array `{}` is {}, but `{}` takes `{}` as {}; save it as that type \
                 (numpy: .astype(numpy.{}))",
                a.inputs.display(),
                d.name,
                arr.file_dtype.unwrap_or(numpy_name(have)),
                ir.name,
                d.name,
                numpy_name(want),
                numpy_name(want)
            );
        }
        let f = Field::from_array(d.ty.dims, arr.clone())
            .with_context(|| format!("{}: array `{}`", a.inputs.display(), d.name))?;
        args.set_field(&d.name, f);
    }
    // Every --scalar must be `name=value` with a scalar the program has.
    for kv in &a.scalar {
        let Some((name, _)) = kv.split_once('=') else {
            bail!("--scalar `{kv}`: expected name=value");
        };
        if !ir.scalars.iter().any(|s| s.name == name.trim()) {
            let names: Vec<&str> = ir.scalars.iter().map(|s| s.name.as_str()).collect();
            bail!(
                "--scalar `{kv}`: `{}` has no scalar `{name}` (its scalars: {})",
                ir.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            );
        }
    }
    for s in &ir.scalars {
        let value = match a
            .scalar
            .iter()
            .find_map(|kv| kv.strip_prefix(&format!("{}=", s.name)))
        {
            Some(v) => Scalar::F64(
                v.parse::<f64>()
                    .with_context(|| format!("--scalar {}={v}", s.name))?,
            ),
            None => match arrays.get(&s.name) {
                Some(Array { data, .. }) if data.len() == 1 => data.get(0),
                Some(Array { shape, .. }) => bail!(
                    "scalar `{}` in {} has shape ({}), but a scalar is a 0-d array (shape ()); \
                     save it as numpy.float64(value), or give --scalar {}=VALUE",
                    s.name,
                    a.inputs.display(),
                    shape.iter().map(|n| format!("{n},")).collect::<String>(),
                    s.name
                ),
                None => bail!(
                    "scalar `{}` missing: give --scalar {}=VALUE or a 0-d array in the .npz",
                    s.name,
                    s.name
                ),
            },
        };
        args.set_scalar(&s.name, value.cast(s.dtype));
    }
    match a.backend.as_str() {
        "interp" => Interpreter.run_ir(&ir, &grid, &mut args)?,
        "cpu" => {
            let cpu = CpuBackend::default();
            let nlev = args.check(&ir, &grid)?;
            let c = cpu.compile(&ir, &Schedule::unfused(&ir), Sizes::of(&grid, nlev))?;
            cpu.run_compiled(&ir, &c, &grid, &mut args)?
        }
        "cuda" => CudaBackend::open(Cache::from_env())?.run_ir(&ir, &grid, &mut args)?,
        other => bail!("unknown backend `{other}` (interp, cpu or cuda)"),
    }
    let outs: Vec<(String, Array)> = ir
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
        .map(|d| {
            (
                d.name.clone(),
                args.field(&d.name).expect("present").to_array(),
            )
        })
        .collect();
    save_npz(&a.output, outs.iter().map(|(n, a)| (n.as_str(), a)))?;
    println!(
        "{} [{}] on {} ({}): wrote {} fields to {}",
        ir.name,
        ir.variant,
        grid.name,
        a.backend,
        outs.len(),
        a.output.display()
    );
    Ok(())
}

/// NumPy's name of a field element type.
fn numpy_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F64 => "float64",
        DType::F32 => "float32",
        DType::I32 => "int32",
        DType::Bool => "bool_",
    }
}
