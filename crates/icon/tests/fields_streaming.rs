//! The static fields handed over one by one ([`StaticFields::for_each_named`], the
//! metric fields through `MetricFields::compute_each`) are the fields of
//! [`StaticFields::named`]: the same names, order, dimensions, shapes and values, bit
//! for bit, on R2B2 and on the limited-area cap; each metric field's
//! [`MetricId::layout`] has its name, dimensions, shape and element type.

use foehn_grid::{Grid, Location};
use foehn_icon::fields::metrics::MetricId;
use foehn_icon::fields::named::{FieldData, NamedField, StaticFields, StaticFieldsError};
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_testkit::grids;

const NLEV: usize = 10;

fn topography() -> Topography {
    Topography::JablonowskiWilliamson(JwTopography {
        u0: 35.0,
        eta_0: 0.252,
    })
}

/// Values as bits, so that equal means bit for bit (signs of zeros included).
fn bits(data: &FieldData<'_>) -> Vec<u64> {
    match data {
        FieldData::F64(d) => d.iter().map(|x| x.to_bits()).collect(),
        FieldData::I32(d) => d.iter().map(|&x| x as u32 as u64).collect(),
        FieldData::Bool(d) => d.iter().map(|&x| x as u64).collect(),
    }
}

fn same(a: &NamedField<'_>, b: &NamedField<'_>) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.icon_name, b.icon_name, "{}", a.name);
    assert_eq!(a.dims, b.dims, "{}", a.name);
    assert_eq!(a.shape, b.shape, "{}", a.name);
    assert_eq!(a.data.dtype(), b.data.dtype(), "{}", a.name);
    assert_eq!(a.long_name, b.long_name, "{}", a.name);
    assert_eq!(a.units, b.units, "{}", a.name);
    assert!(bits(&a.data) == bits(&b.data), "{}: values differ", a.name);
}

fn check(name: &str, grid: &Grid) {
    let all = StaticFields::compute(grid, VerticalConfig::new(NLEV), &topography()).unwrap();
    let named = all.named(grid);
    let mut i = 0;
    StaticFields::for_each_named(grid, VerticalConfig::new(NLEV), &topography(), &mut |f| {
        let expected = named
            .get(i)
            .unwrap_or_else(|| panic!("{name}: extra {}", f.name));
        same(&f, expected);
        if let Some(id) = MetricId::ALL.iter().find(|id| id.name() == f.name) {
            let layout = id.layout(grid.size(Location::Cell), grid.size(Location::Edge), NLEV);
            assert_eq!(layout.dims, f.dims, "{name}: {}", f.name);
            assert_eq!(layout.shape, f.shape, "{name}: {}", f.name);
            assert_eq!(layout.data.dtype(), f.data.dtype(), "{name}: {}", f.name);
        }
        i += 1;
        Ok::<(), StaticFieldsError>(())
    })
    .unwrap();
    assert_eq!(i, named.len(), "{name}: fields missing");
}

#[test]
fn streamed_fields_are_the_named_fields() {
    check("r2b2", grids::global());
    check("cap", grids::limited_area());
}
