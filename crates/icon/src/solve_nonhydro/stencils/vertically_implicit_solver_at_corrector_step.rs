//! `vertically_implicit_solver_at_corrector_step`: being written (issue 15); not yet in the catalog.
