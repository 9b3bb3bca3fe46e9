//! Element types, dimensions and expression types of the IR.

use foehn_grid::{Connectivity, Location};
use std::fmt;
use std::hash::{Hash, Hasher};

/// The element type of a field, scalar or expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// 64-bit IEEE float (ICON's `wp`).
    F64,
    /// 32-bit IEEE float (ICON's `vp` in mixed precision).
    F32,
    /// 32-bit signed integer (indices, vertical offsets).
    I32,
    /// Boolean (masks).
    Bool,
}

impl DType {
    /// The short name (`f64`, `f32`, `i32`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::I32 => "i32",
            DType::Bool => "bool",
        }
    }

    /// True for `f64` and `f32`.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F64 | DType::F32)
    }

    /// True for every type arithmetic is defined on (all but `bool`).
    pub fn is_numeric(self) -> bool {
        self != DType::Bool
    }

    /// The value temporaries start with and benchmarks poison outputs with: NaN for
    /// floats, `i32::MIN`, `false`.
    pub fn poison(self) -> Scalar {
        match self {
            DType::F64 => Scalar::F64(f64::NAN),
            DType::F32 => Scalar::F32(f32::NAN),
            DType::I32 => Scalar::I32(i32::MIN),
            DType::Bool => Scalar::Bool(false),
        }
    }

    /// Size of one element in bytes (bool takes one byte, as in NumPy).
    pub fn size_bytes(self) -> usize {
        match self {
            DType::F64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::Bool => 1,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of a vertical dimension: full levels (`nlev`) or half levels (`nlev + 1`).
///
/// Level `k` of a half-level field is the interface *above* full level `k`
/// (k = 0 is the model top), so the two kinds never mix silently: reading a half-level
/// field where full levels are expected needs an explicit `.as_full()` (same index)
/// or `.k_shift(1).as_full()` (interface below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VKind {
    /// Full (layer) levels, `nlev` of them (GT4Py `K`).
    Full,
    /// Half levels (interfaces), `nlev + 1` of them (GT4Py `KHalf`).
    Half,
}

impl VKind {
    /// The dimension name (`K` or `KHalf`).
    pub fn name(self) -> &'static str {
        match self {
            VKind::Full => "K",
            VKind::Half => "KHalf",
        }
    }

    /// The number of levels for a model with `nlev` full levels.
    pub fn levels(self, nlev: usize) -> usize {
        match self {
            VKind::Full => nlev,
            VKind::Half => nlev + 1,
        }
    }
}

impl fmt::Display for VKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One named dimension: horizontal, local (neighbour) or vertical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// A horizontal dimension (Cell, Edge, Vertex).
    H(Location),
    /// A local neighbour dimension, named by its connectivity (e.g. `C2E`).
    Local(Connectivity),
    /// A vertical dimension.
    V(VKind),
}

impl From<Location> for Dim {
    fn from(l: Location) -> Dim {
        Dim::H(l)
    }
}

impl From<Connectivity> for Dim {
    fn from(c: Connectivity) -> Dim {
        Dim::Local(c)
    }
}

impl From<VKind> for Dim {
    fn from(v: VKind) -> Dim {
        Dim::V(v)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::H(l) => write!(f, "{l}"),
            Dim::Local(c) => write!(f, "{c}"),
            Dim::V(v) => write!(f, "{v}"),
        }
    }
}

/// The dimensions of a field or expression, in ICON4Py's canonical order
/// `[horizontal, local, vertical]`; each is optional (a scalar has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Dims {
    /// The horizontal location, if any.
    pub horizontal: Option<Location>,
    /// The local (neighbour) dimension, if any.
    pub local: Option<Connectivity>,
    /// The vertical dimension kind, if any.
    pub vertical: Option<VKind>,
}

impl Dims {
    /// No dimensions (a scalar).
    pub const SCALAR: Dims = Dims {
        horizontal: None,
        local: None,
        vertical: None,
    };

    /// Builds dims from a list; `Err` says why the list is not a valid set
    /// (two dims of one kind, or a local dim whose connectivity starts elsewhere).
    pub fn from_list(list: &[Dim]) -> Result<Dims, String> {
        let mut d = Dims::default();
        for &dim in list {
            match dim {
                Dim::H(l) if d.horizontal.is_none() => d.horizontal = Some(l),
                Dim::Local(c) if d.local.is_none() => d.local = Some(c),
                Dim::V(v) if d.vertical.is_none() => d.vertical = Some(v),
                _ => {
                    return Err(format!(
                        "dimension {dim} given twice or with another of its kind"
                    ))
                }
            }
        }
        if let Some(c) = d.local {
            if d.horizontal != Some(c.from()) {
                return Err(format!(
                    "local dimension {c} needs horizontal dimension {} (the location its rows belong to)",
                    c.from()
                ));
            }
        }
        Ok(d)
    }

    /// The present dimensions in canonical order.
    pub fn list(&self) -> Vec<Dim> {
        let mut v = Vec::with_capacity(3);
        v.extend(self.horizontal.map(Dim::H));
        v.extend(self.local.map(Dim::Local));
        v.extend(self.vertical.map(Dim::V));
        v
    }

    /// True when no dimension is present.
    pub fn is_scalar(&self) -> bool {
        *self == Dims::SCALAR
    }

    /// The union of two operands' dimensions (a dimension missing in one is broadcast):
    /// the dims of the result of a binary operation, a select or a vertical offset.
    pub fn union(self, other: Dims) -> Result<Dims, DimsConflict> {
        let mut d = self;
        match (self.horizontal, other.horizontal) {
            (Some(x), Some(y)) if x != y => return Err(DimsConflict::Horizontal(x, y)),
            (None, y) => d.horizontal = y,
            _ => {}
        }
        match (self.local, other.local) {
            (Some(x), Some(y)) if x != y => return Err(DimsConflict::Local(x, y)),
            (None, y) => d.local = y,
            _ => {}
        }
        match (self.vertical, other.vertical) {
            (Some(x), Some(y)) if x != y => return Err(DimsConflict::Vertical(x, y)),
            (None, y) => d.vertical = y,
            _ => {}
        }
        Ok(d)
    }

    /// The dims of a value of dims `self` read through `conn` (`x(C2E)`, with
    /// `all_neighbours`, or one slot `x(E2C[1])`): on `conn`'s source location, with
    /// the connectivity as local dim when all neighbours are read. `Err` when the value
    /// has a local dim already or lives on another location than `conn`'s target.
    pub fn shifted(self, conn: Connectivity, all_neighbours: bool) -> Result<Dims, ShiftError> {
        if let Some(l) = self.local {
            return Err(ShiftError::HasLocal(l));
        }
        if let Some(h) = self.horizontal.filter(|&h| h != conn.to()) {
            return Err(ShiftError::WrongLocation(h));
        }
        let mut d = self;
        d.horizontal = Some(conn.from());
        if all_neighbours {
            d.local = Some(conn);
        }
        Ok(d)
    }

    /// The dims of a reduction over `conn` of a value of dims `self` (the local dim
    /// dropped); `None` unless the value has dims `[conn.from(), conn, ...]`.
    pub fn reduced(self, conn: Connectivity) -> Option<Dims> {
        (self.local == Some(conn) && self.horizontal == Some(conn.from())).then_some(Dims {
            local: None,
            ..self
        })
    }

    /// True when every dimension of `self` is present (equal) in `other`.
    pub fn fits_in(&self, other: &Dims) -> bool {
        fn ok<T: PartialEq>(a: Option<T>, b: Option<T>) -> bool {
            a.is_none() || a == b
        }
        ok(self.horizontal, other.horizontal)
            && ok(self.local, other.local)
            && ok(self.vertical, other.vertical)
    }
}

/// Why two sets of dimensions cannot be combined by [`Dims::union`]: both operands
/// have a dimension of one kind, but different ones (first operand's, second's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimsConflict {
    /// Two horizontal locations.
    Horizontal(Location, Location),
    /// Two local dimensions.
    Local(Connectivity, Connectivity),
    /// Two vertical kinds.
    Vertical(VKind, VKind),
}

/// Why a value cannot be read through a connectivity ([`Dims::shifted`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShiftError {
    /// The value already has this local dimension.
    HasLocal(Connectivity),
    /// The value lives on this location, not the connectivity's target.
    WrongLocation(Location),
}

impl fmt::Display for DimsConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimsConflict::Horizontal(x, y) => write!(f, "horizontal dimensions {x} and {y}"),
            DimsConflict::Local(x, y) => write!(f, "local dimensions {x} and {y}"),
            DimsConflict::Vertical(x, y) => write!(f, "vertical kinds {x} and {y}"),
        }
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.list().iter().map(|d| d.to_string()).collect();
        write!(f, "[{}]", names.join(", "))
    }
}

/// The type of a field: dimensions and element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldType {
    /// Dimensions.
    pub dims: Dims,
    /// Element type.
    pub dtype: DType,
}

impl FieldType {
    /// A new field type.
    pub fn new(dims: Dims, dtype: DType) -> FieldType {
        FieldType { dims, dtype }
    }

    /// A dimensionless (scalar) type.
    pub fn scalar(dtype: DType) -> FieldType {
        FieldType {
            dims: Dims::SCALAR,
            dtype,
        }
    }

    /// The array shape of a field of this type on a grid with the given sizes:
    /// `horizontal_size` points, `nlev` full levels.
    pub fn shape(&self, horizontal_size: usize, nlev: usize) -> Vec<usize> {
        let mut s = Vec::with_capacity(3);
        if self.dims.horizontal.is_some() {
            s.push(horizontal_size);
        }
        if let Some(c) = self.dims.local {
            s.push(c.width());
        }
        if let Some(v) = self.dims.vertical {
            s.push(v.levels(nlev));
        }
        s
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.dims, self.dtype)
    }
}

/// The type of an IR expression: a field (possibly dimensionless) or a tuple.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// A field or scalar value.
    Field(FieldType),
    /// A tuple of values (stencils with several outputs, scan carries).
    Tuple(Vec<Type>),
}

impl Type {
    /// The field type, or `None` for a tuple.
    pub fn field(&self) -> Option<&FieldType> {
        match self {
            Type::Field(f) => Some(f),
            Type::Tuple(_) => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Field(t) => write!(f, "{t}"),
            Type::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
                write!(f, "({})", parts.join(", "))
            }
        }
    }
}

/// A scalar value of one of the element types: constants in the IR and runtime
/// scalar arguments. Floats compare and hash by bit pattern, so the IR stays hashable.
#[derive(Debug, Clone, Copy)]
pub enum Scalar {
    /// A 64-bit float.
    F64(f64),
    /// A 32-bit float.
    F32(f32),
    /// A 32-bit integer.
    I32(i32),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Scalar::F64(_) => DType::F64,
            Scalar::F32(_) => DType::F32,
            Scalar::I32(_) => DType::I32,
            Scalar::Bool(_) => DType::Bool,
        }
    }

    /// The value as `f64` (booleans as 0/1).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Scalar::F64(x) => x,
            Scalar::F32(x) => x as f64,
            Scalar::I32(x) => x as f64,
            Scalar::Bool(b) => b as i32 as f64,
        }
    }

    /// Converts to another element type with C cast semantics
    /// (float to int truncates and saturates; non-zero is `true`).
    pub fn cast(&self, to: DType) -> Scalar {
        match (to, *self) {
            (DType::F64, s) => Scalar::F64(s.as_f64()),
            (DType::F32, Scalar::F64(x)) => Scalar::F32(x as f32),
            (DType::F32, s) => Scalar::F32(s.as_f64() as f32),
            (DType::I32, Scalar::F64(x)) => Scalar::I32(x as i32),
            (DType::I32, Scalar::F32(x)) => Scalar::I32(x as i32),
            (DType::I32, Scalar::I32(x)) => Scalar::I32(x),
            (DType::I32, Scalar::Bool(b)) => Scalar::I32(b as i32),
            (DType::Bool, Scalar::Bool(b)) => Scalar::Bool(b),
            (DType::Bool, s) => Scalar::Bool(s.as_f64() != 0.0),
        }
    }

    fn key(&self) -> (u8, u64) {
        match *self {
            Scalar::F64(x) => (0, x.to_bits()),
            Scalar::F32(x) => (1, x.to_bits() as u64),
            Scalar::I32(x) => (2, x as u32 as u64),
            Scalar::Bool(b) => (3, b as u64),
        }
    }
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Scalar {}

impl Hash for Scalar {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::F64(x) => write!(f, "{x:?}"),
            Scalar::F32(x) => write!(f, "{x:?}f32"),
            Scalar::I32(x) => write!(f, "{x}i32"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl From<f64> for Scalar {
    fn from(x: f64) -> Scalar {
        Scalar::F64(x)
    }
}

impl From<f32> for Scalar {
    fn from(x: f32) -> Scalar {
        Scalar::F32(x)
    }
}

impl From<i32> for Scalar {
    fn from(x: i32) -> Scalar {
        Scalar::I32(x)
    }
}

impl From<bool> for Scalar {
    fn from(x: bool) -> Scalar {
        Scalar::Bool(x)
    }
}
