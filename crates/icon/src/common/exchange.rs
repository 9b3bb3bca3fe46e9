//! The halo-exchange hook of a decomposed run (ICON's `sync_patch_array`, ICON4Py's
//! `ExchangeRuntime`).
//!
//! A component lists the points of its schedule where ICON exchanges halos (the
//! `Exchange` steps of its [`runner`](crate::common::runner) step list, which say which
//! fields, on which
//! location, and whether the exchange blocks or is started and waited for later) and
//! calls an [`Exchange`] there with the fields of its state. On one domain every point
//! of a field is owned, so there is nothing to exchange: [`NoExchange`], what the
//! component runs today. A decomposed run (the planned `parallel` crate: MPI or NCCL)
//! implements the trait: `start` sends the owned values its neighbours hold as halo
//! points and posts the receives, `wait` completes them and writes the received values
//! into this subdomain's halo points.

use foehn::error::Result;
use foehn::runtime::field::FieldView;
use foehn_grid::Location;

/// Halo exchange of fields of a component's state: `names[i]` names `fields[i]` (the
/// component binds which fields once; the names are for messages and logs).
pub trait Exchange {
    /// Starts exchanging the halos of `fields` (all on `location`); they are up to date
    /// only after [`Exchange::wait`] for the same fields.
    fn start(&mut self, location: Location, names: &[&str], fields: &mut [FieldView])
        -> Result<()>;

    /// Waits for the exchange of `fields` begun by [`Exchange::start`] and writes the
    /// received halo values into them.
    fn wait(&mut self, location: Location, names: &[&str], fields: &mut [FieldView]) -> Result<()>;

    /// Exchanges the halos of `fields` and waits for them (blocking exchange): by
    /// default [`Exchange::start`], then [`Exchange::wait`].
    fn exchange(
        &mut self,
        location: Location,
        names: &[&str],
        fields: &mut [FieldView],
    ) -> Result<()> {
        self.start(location, names, fields)?;
        self.wait(location, names, fields)
    }
}

/// The single-domain exchange: every point is owned, so each call leaves the fields as
/// they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoExchange;

impl Exchange for NoExchange {
    fn start(&mut self, _: Location, _: &[&str], _: &mut [FieldView]) -> Result<()> {
        Ok(())
    }

    fn wait(&mut self, _: Location, _: &[&str], _: &mut [FieldView]) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foehn::dsl::prelude::*;
    use foehn::runtime::field::Field;
    use foehn_grid::Grid;

    /// Records the calls it gets.
    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl Exchange for Recorder {
        fn start(
            &mut self,
            location: Location,
            fields: &[&str],
            _: &mut [FieldView],
        ) -> Result<()> {
            self.0
                .push(format!("start {location:?} {}", fields.join(",")));
            Ok(())
        }

        fn wait(&mut self, location: Location, fields: &[&str], _: &mut [FieldView]) -> Result<()> {
            self.0
                .push(format!("wait {location:?} {}", fields.join(",")));
            Ok(())
        }
    }

    #[test]
    fn no_exchange_leaves_the_fields_as_they_are() {
        let grid = Grid::icosahedral(2, 0, 1.0).unwrap();
        let mut vn = Field::from_fn_f64(&grid, 3, (EDGE, K), |i| i as f64);
        let before = vn.clone();
        let mut hook = NoExchange;
        {
            let mut store = vec![vn.view_mut()];
            hook.exchange(EDGE, &["vn"], &mut store).unwrap();
            hook.start(EDGE, &["vn"], &mut store).unwrap();
            hook.wait(EDGE, &["vn"], &mut store).unwrap();
        }
        assert_eq!(vn, before);
    }

    #[test]
    fn a_blocking_exchange_is_a_start_then_a_wait() {
        let mut hook = Recorder::default();
        let mut store: Vec<FieldView> = vec![];
        hook.exchange(CELL, &["theta_v", "exner"], &mut store)
            .unwrap();
        assert_eq!(
            hook.0,
            ["start Cell theta_v,exner", "wait Cell theta_v,exner"]
        );
    }
}
