//! `vertically_implicit_solver_at_predictor_step`: being written (issue 15); not yet in the catalog.
