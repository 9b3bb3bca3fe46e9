//! `compute_perturbed_quantities_and_interpolation`: being written (issue 15); not yet in the catalog.
