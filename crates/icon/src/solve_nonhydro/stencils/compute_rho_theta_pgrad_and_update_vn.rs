//! `compute_rho_theta_pgrad_and_update_vn`: being written (issue 15); not yet in the catalog.
