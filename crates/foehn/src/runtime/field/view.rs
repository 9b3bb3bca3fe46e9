//! Borrowed fields: views of memory the caller owns (a NumPy array, a Fortran array) in
//! foehn's layout, which backends read and write in place. The CPU backend runs
//! programs on views directly; other backends copy through owned [`Field`]s.

use super::{describe, Field, FieldData};
use crate::dsl::IntoDims;
use crate::error::{Error, Result};
use crate::ir::{DType, Dims};
use foehn_grid::Grid;
use std::ffi::c_void;

/// The borrowed elements of a [`FieldView`].
#[derive(Debug)]
pub enum SliceData<'a> {
    /// 64-bit floats.
    F64(&'a mut [f64]),
    /// 32-bit floats.
    F32(&'a mut [f32]),
    /// 32-bit integers.
    I32(&'a mut [i32]),
    /// Booleans (one byte each).
    Bool(&'a mut [bool]),
}

impl SliceData<'_> {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            SliceData::F64(_) => DType::F64,
            SliceData::F32(_) => DType::F32,
            SliceData::I32(_) => DType::I32,
            SliceData::Bool(_) => DType::Bool,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            SliceData::F64(v) => v.len(),
            SliceData::F32(v) => v.len(),
            SliceData::I32(v) => v.len(),
            SliceData::Bool(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A field whose elements live in memory the caller owns: dimensions, shape (one extent
/// per present dimension, as [`Field`]) and a mutable slice in foehn's column-major
/// layout (horizontal fastest, then local, then levels).
#[derive(Debug)]
pub struct FieldView<'a> {
    dims: Dims,
    shape: Vec<usize>,
    data: SliceData<'a>,
}

impl<'a> FieldView<'a> {
    /// A view of `data` with `dims` and `shape`; errors when the shape does not match the
    /// dimensions or the slice's length.
    pub fn new(dims: impl IntoDims, shape: Vec<usize>, data: SliceData<'a>) -> Result<Self> {
        let dims = Dims::from_list(&dims.into_dims()).map_err(Error::Field)?;
        Self::with_dims(dims, shape, data)
    }

    fn with_dims(dims: Dims, shape: Vec<usize>, data: SliceData<'a>) -> Result<Self> {
        let n: usize = shape.iter().product();
        if shape.len() != dims.list().len() || n != data.len() {
            return Err(Error::Field(format!(
                "a view of {} elements with shape {shape:?} for dims {dims}: {}",
                data.len(),
                if shape.len() != dims.list().len() {
                    "one extent per dimension is needed"
                } else {
                    "the shape does not hold that many elements"
                }
            )));
        }
        Ok(FieldView { dims, shape, data })
    }

    /// A view of nothing: what a view moved out of a list leaves behind (never an
    /// argument; argument checks refuse it).
    pub fn placeholder() -> FieldView<'static> {
        FieldView {
            dims: Dims::default(),
            shape: vec![],
            data: SliceData::F64(&mut []),
        }
    }

    /// A view of `data` as an `f64` field with `dims` on `grid` with `nlev` levels.
    pub fn f64(grid: &Grid, nlev: usize, dims: impl IntoDims, data: &'a mut [f64]) -> Result<Self> {
        let dims = Dims::from_list(&dims.into_dims()).map_err(Error::Field)?;
        let shape = Field::grid_shape(grid, nlev, dims);
        FieldView::with_dims(dims, shape, SliceData::F64(data))
    }

    /// The dimensions.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// The elements.
    pub fn data(&self) -> &SliceData<'a> {
        &self.data
    }

    /// The elements, to write in place (the shape and type stay).
    pub fn data_mut(&mut self) -> &mut SliceData<'a> {
        &mut self.data
    }

    /// Element strides `(horizontal, local, vertical)` (see `ir::layout::strides_of`).
    pub fn strides(&self) -> (usize, usize, usize) {
        crate::ir::layout::strides_of(self.dims, &self.shape)
    }

    /// Number of levels (1 without a vertical dimension).
    pub fn vertical_extent(&self) -> usize {
        crate::ir::layout::vertical_extent_of(self.dims, &self.shape)
    }

    /// Dims, shape and type, for messages.
    pub fn describe(&self) -> String {
        describe(self.dims, &self.shape, self.dtype())
    }

    /// A view of the same memory for a shorter borrow.
    pub fn reborrow(&mut self) -> FieldView<'_> {
        let data = match &mut self.data {
            SliceData::F64(v) => SliceData::F64(v),
            SliceData::F32(v) => SliceData::F32(v),
            SliceData::I32(v) => SliceData::I32(v),
            SliceData::Bool(v) => SliceData::Bool(v),
        };
        FieldView {
            dims: self.dims,
            shape: self.shape.clone(),
            data,
        }
    }

    /// The first element's address (what generated code reads and writes).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut c_void {
        match &mut self.data {
            SliceData::F64(v) => v.as_mut_ptr() as *mut c_void,
            SliceData::F32(v) => v.as_mut_ptr() as *mut c_void,
            SliceData::I32(v) => v.as_mut_ptr() as *mut c_void,
            SliceData::Bool(v) => v.as_mut_ptr() as *mut c_void,
        }
    }

    /// An owned copy.
    pub fn to_field(&self) -> Field {
        let data = match &self.data {
            SliceData::F64(v) => FieldData::F64(v.to_vec()),
            SliceData::F32(v) => FieldData::F32(v.to_vec()),
            SliceData::I32(v) => FieldData::I32(v.to_vec()),
            SliceData::Bool(v) => FieldData::Bool(v.to_vec()),
        };
        Field::new(self.dims, self.shape.clone(), data).expect("a view's shape matches its data")
    }

    /// Copies the elements of `f` (same dims, shape and type) into the viewed memory.
    pub fn copy_from(&mut self, f: &Field) -> Result<()> {
        if f.dims() != self.dims || f.shape() != self.shape.as_slice() {
            return Err(Error::Field(format!(
                "cannot copy {} into a view of {}",
                f.describe(),
                self.describe()
            )));
        }
        match (&mut self.data, f.data()) {
            (SliceData::F64(v), FieldData::F64(x)) => v.copy_from_slice(x),
            (SliceData::F32(v), FieldData::F32(x)) => v.copy_from_slice(x),
            (SliceData::I32(v), FieldData::I32(x)) => v.copy_from_slice(x),
            (SliceData::Bool(v), FieldData::Bool(x)) => v.copy_from_slice(x),
            _ => {
                return Err(Error::Field(format!(
                    "cannot copy {} into a view of {}",
                    f.describe(),
                    self.describe()
                )))
            }
        }
        Ok(())
    }
}

impl Field {
    /// This field's elements as a view (what the CPU backend runs on).
    pub fn view_mut(&mut self) -> FieldView<'_> {
        let dims = self.dims();
        let shape = self.shape().to_vec();
        let data = match self.data_mut() {
            FieldData::F64(v) => SliceData::F64(v),
            FieldData::F32(v) => SliceData::F32(v),
            FieldData::I32(v) => SliceData::I32(v),
            FieldData::Bool(v) => SliceData::Bool(v),
        };
        FieldView { dims, shape, data }
    }
}
