//! Host fields: column-major arrays (horizontal index fastest, like ICON's Fortran
//! `(nproma, nlev)` and what GPUs need for coalesced access) with named dimensions in ICON4Py order
//! (`[horizontal, local, vertical]`), of `f64`, `f32`, `i32` or `bool`; program
//! arguments; NumPy `.npy`/`.npz` I/O.

pub mod access;
mod args;
pub mod npy;
mod view;

pub use args::{check_field, check_positional, Args, Shaped};
pub use view::{FieldView, SliceData};

use crate::dsl::IntoDims;
use crate::error::{Error, Result};
use crate::ir::{DType, Dims, FieldType, Scalar};
use foehn_grid::Grid;

/// The element storage of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldData {
    /// 64-bit floats.
    F64(Vec<f64>),
    /// 32-bit floats.
    F32(Vec<f32>),
    /// 32-bit integers.
    I32(Vec<i32>),
    /// Booleans.
    Bool(Vec<bool>),
}

impl FieldData {
    /// `n` copies of `value`.
    pub fn filled(value: Scalar, n: usize) -> FieldData {
        match value {
            Scalar::F64(x) => FieldData::F64(vec![x; n]),
            Scalar::F32(x) => FieldData::F32(vec![x; n]),
            Scalar::I32(x) => FieldData::I32(vec![x; n]),
            Scalar::Bool(x) => FieldData::Bool(vec![x; n]),
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            FieldData::F64(_) => DType::F64,
            FieldData::F32(_) => DType::F32,
            FieldData::I32(_) => DType::I32,
            FieldData::Bool(_) => DType::Bool,
        }
    }

    /// Sets every element to `value`, converted to the field's type as [`FieldData::set`]
    /// converts it.
    pub fn fill(&mut self, value: Scalar) {
        let own = self.dtype();
        let value = if value.dtype() == own {
            value
        } else {
            value.cast(own)
        };
        match (self, value) {
            (FieldData::F64(v), Scalar::F64(x)) => v.fill(x),
            (FieldData::F32(v), Scalar::F32(x)) => v.fill(x),
            (FieldData::I32(v), Scalar::I32(x)) => v.fill(x),
            (FieldData::Bool(v), Scalar::Bool(x)) => v.fill(x),
            _ => unreachable!("cast to the data's own type"),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            FieldData::F64(v) => v.len(),
            FieldData::F32(v) => v.len(),
            FieldData::I32(v) => v.len(),
            FieldData::Bool(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            FieldData::F64(v) => Scalar::F64(v[i]),
            FieldData::F32(v) => Scalar::F32(v[i]),
            FieldData::I32(v) => Scalar::I32(v[i]),
            FieldData::Bool(v) => Scalar::Bool(v[i]),
        }
    }

    /// Sets element `i`; `value` is converted to the field's type (C cast semantics).
    #[inline]
    pub fn set(&mut self, i: usize, value: Scalar) {
        match self {
            FieldData::F64(v) => v[i] = value.as_f64(),
            FieldData::F32(v) => {
                v[i] = match value {
                    Scalar::F32(x) => x,
                    s => s.as_f64() as f32,
                }
            }
            FieldData::I32(v) => {
                if let Scalar::I32(x) = value.cast(DType::I32) {
                    v[i] = x
                }
            }
            FieldData::Bool(v) => {
                if let Scalar::Bool(x) = value.cast(DType::Bool) {
                    v[i] = x
                }
            }
        }
    }
}

/// A host field: dimensions, shape (one extent per present dimension) and data.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    dims: Dims,
    shape: Vec<usize>,
    data: FieldData,
}

impl Field {
    /// Wraps data; errors when the shape does not match the dims or the data length.
    pub fn new(dims: Dims, shape: Vec<usize>, data: FieldData) -> Result<Field> {
        if shape.len() != dims.list().len() {
            return Err(Error::Field(format!(
                "shape {shape:?} has {} extents but dims {dims} need {}",
                shape.len(),
                dims.list().len()
            )));
        }
        if let Some(c) = dims.local {
            let i = dims.horizontal.is_some() as usize;
            if shape[i] != c.width() {
                return Err(Error::Field(format!(
                    "local dimension {c} has extent {} but {c} has {} neighbours",
                    shape[i],
                    c.width()
                )));
            }
        }
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(Error::Field(format!(
                "shape {shape:?} holds {n} elements but the data has {}",
                data.len()
            )));
        }
        Ok(Field { dims, shape, data })
    }

    /// An empty field without dimensions: what a field moved out of a state leaves
    /// behind (never an argument of a program; argument checks refuse it).
    pub fn placeholder() -> Field {
        Field {
            dims: Dims::default(),
            shape: vec![],
            data: FieldData::F64(vec![]),
        }
    }

    /// A field of `value`s shaped for `grid` with `nlev` full levels.
    ///
    /// # Panics
    /// When `dims` is not a valid dimension set (e.g. two horizontal dims).
    pub fn filled(grid: &Grid, nlev: usize, dims: impl IntoDims, value: Scalar) -> Field {
        let dims = Dims::from_list(&dims.into_dims()).expect("valid dimensions");
        let shape = Self::grid_shape(grid, nlev, dims);
        let n = shape.iter().product();
        Field {
            dims,
            shape,
            data: FieldData::filled(value, n),
        }
    }

    /// A zero field of `dtype` shaped for `grid` (see [`Field::filled`]).
    pub fn zeros(grid: &Grid, nlev: usize, dims: impl IntoDims, dtype: DType) -> Field {
        Self::filled(grid, nlev, dims, Scalar::F64(0.0).cast(dtype))
    }

    /// An `f64` field whose element at flat (column-major, see [`Field::flat_index`]) index `i` is `f(i)`.
    pub fn from_fn_f64(
        grid: &Grid,
        nlev: usize,
        dims: impl IntoDims,
        f: impl FnMut(usize) -> f64,
    ) -> Field {
        let mut field = Self::zeros(grid, nlev, dims, DType::F64);
        let n = field.data.len();
        field.data = FieldData::F64((0..n).map(f).collect());
        field
    }

    /// A field of `dtype` whose element at multi-index `idx` is `f(idx)` (converted).
    pub fn from_fn(
        grid: &Grid,
        nlev: usize,
        dims: impl IntoDims,
        dtype: DType,
        mut f: impl FnMut(&[usize]) -> Scalar,
    ) -> Field {
        let mut field = Self::zeros(grid, nlev, dims, dtype);
        let shape = field.shape.clone();
        let mut idx = vec![0; shape.len()];
        for i in 0..field.data.len() {
            field.data.set(i, f(&idx));
            for d in 0..shape.len() {
                idx[d] += 1;
                if idx[d] < shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        field
    }

    /// The shape a field with `dims` has on `grid` with `nlev` full levels.
    pub fn grid_shape(grid: &Grid, nlev: usize, dims: Dims) -> Vec<usize> {
        crate::ir::layout::grid_shape(grid, nlev, dims)
    }

    /// The dimensions.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The shape (one extent per present dimension, canonical order).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// The field's type.
    pub fn field_type(&self) -> FieldType {
        FieldType::new(self.dims, self.dtype())
    }

    /// The size of the data in bytes.
    pub fn bytes(&self) -> usize {
        self.data.len() * self.data.dtype().size_bytes()
    }

    /// The data.
    pub fn data(&self) -> &FieldData {
        &self.data
    }

    /// The data, mutably.
    pub fn data_mut(&mut self) -> &mut FieldData {
        &mut self.data
    }

    /// The elements if `f64`.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match &self.data {
            FieldData::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The elements if `f64`, mutably.
    pub fn as_f64_mut(&mut self) -> Option<&mut [f64]> {
        match &mut self.data {
            FieldData::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The elements if `f32`.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            FieldData::F32(v) => Some(v),
            _ => None,
        }
    }

    /// The elements if `i32`.
    pub fn as_i32(&self) -> Option<&[i32]> {
        match &self.data {
            FieldData::I32(v) => Some(v),
            _ => None,
        }
    }

    /// The elements if `bool`.
    pub fn as_bool(&self) -> Option<&[bool]> {
        match &self.data {
            FieldData::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// The flat index of horizontal point `h`, local slot `j` and level `k` in the
    /// column-major layout (horizontal fastest, then local, then vertical; arguments for
    /// absent dimensions are ignored).
    #[inline]
    pub fn flat_index(&self, h: usize, j: usize, k: usize) -> usize {
        let mut i = 0;
        let mut stride = 1;
        let mut d = 0;
        if self.dims.horizontal.is_some() {
            i = h;
            stride = self.shape[0];
            d = 1;
        }
        if self.dims.local.is_some() {
            i += j * stride;
            stride *= self.shape[d];
        }
        if self.dims.vertical.is_some() {
            i += k * stride;
        }
        i
    }

    /// Element strides `(horizontal, local, vertical)` of the column-major layout
    /// (0 for absent dimensions).
    pub fn strides(&self) -> (usize, usize, usize) {
        crate::ir::layout::strides_of(self.dims, &self.shape)
    }

    /// Reorders the elements between the column-major layout and the level-fastest
    /// one of `ir::layout::strides_level_fastest` (`to_level_fastest` says which way),
    /// so a schedule with `level_fastest` can be fed and checked from host fields
    /// (ADR 0027). Fields without levels are unchanged.
    pub fn relayout_level_fastest(&mut self, to_level_fastest: bool) {
        if self.dims.vertical.is_none() {
            return;
        }
        let column = self.strides();
        let fastest = crate::ir::layout::strides_level_fastest(self.dims, &self.shape);
        let (from, to) = if to_level_fastest {
            (column, fastest)
        } else {
            (fastest, column)
        };
        let n_h = if self.dims.horizontal.is_some() {
            self.shape[0]
        } else {
            1
        };
        let w = self.dims.local.map_or(1, |c| c.width());
        let nk = self.vertical_extent();
        // `source[i]`: where element `i` of the new order is now.
        let mut source = vec![0usize; n_h * w * nk];
        for h in 0..n_h {
            for j in 0..w {
                for k in 0..nk {
                    let at = |s: (usize, usize, usize)| h * s.0 + j * s.1 + k * s.2;
                    source[at(to)] = at(from);
                }
            }
        }
        fn gather<T: Copy>(v: &mut Vec<T>, source: &[usize]) {
            *v = source.iter().map(|&i| v[i]).collect();
        }
        match &mut self.data {
            FieldData::F64(v) => gather(v, &source),
            FieldData::F32(v) => gather(v, &source),
            FieldData::I32(v) => gather(v, &source),
            FieldData::Bool(v) => gather(v, &source),
        }
    }

    /// Number of levels (1 for fields without a vertical dimension).
    pub fn vertical_extent(&self) -> usize {
        crate::ir::layout::vertical_extent_of(self.dims, &self.shape)
    }

    /// The number of levels (0 without a vertical dimension).
    pub fn levels(&self) -> usize {
        if self.dims.vertical.is_some() {
            *self.shape.last().unwrap()
        } else {
            0
        }
    }

    /// A readable description, e.g. `[Cell=320, K=10] f64`.
    pub fn describe(&self) -> String {
        describe(self.dims, &self.shape, self.dtype())
    }
}

/// Describes a shape with dimension names, e.g. `[Cell=320, C2E=3] f64`.
pub fn describe(dims: Dims, shape: &[usize], dtype: DType) -> String {
    let parts: Vec<String> = dims
        .list()
        .iter()
        .zip(shape)
        .map(|(d, n)| format!("{d}={n}"))
        .collect();
    format!("[{}] {dtype}", parts.join(", "))
}
