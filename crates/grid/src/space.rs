//! The surface a grid lives on (sphere or doubly periodic plane) and its vector geometry.

/// A 3-vector (Cartesian coordinates).
pub type Vec3 = [f64; 3];

/// Earth's radius as ICON uses it (m).
pub const EARTH_RADIUS: f64 = 6.371229e6;
/// Earth's angular velocity as ICON uses it (rad/s).
pub const EARTH_ANGULAR_VELOCITY: f64 = 7.29212e-5;

/// The surface of a grid. Sphere points are unit vectors (lengths scale by `radius`);
/// torus points are `[x, y, 0]` in metres inside `[0, length) × [0, height)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Space {
    /// A sphere of the given radius (m).
    Sphere {
        /// Radius in metres.
        radius: f64,
    },
    /// A doubly periodic plane of the given extent (m).
    Torus {
        /// Period in x (m).
        length: f64,
        /// Period in y (m).
        height: f64,
    },
}

#[inline]
pub(crate) fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline]
pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
pub(crate) fn scale(a: Vec3, s: f64) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline]
pub(crate) fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
pub(crate) fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
#[inline]
pub(crate) fn norm(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}
#[inline]
pub(crate) fn normalize(a: Vec3) -> Vec3 {
    scale(a, 1.0 / norm(a))
}

/// Unit vector of latitude/longitude (radians).
pub fn unit_from_lat_lon(lat: f64, lon: f64) -> Vec3 {
    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
}

/// Latitude and longitude (radians) of a unit vector.
pub fn lat_lon_of_unit(p: Vec3) -> (f64, f64) {
    (p[2].clamp(-1.0, 1.0).asin(), p[1].atan2(p[0]))
}

impl Space {
    /// True on the sphere.
    pub fn is_sphere(&self) -> bool {
        matches!(self, Space::Sphere { .. })
    }

    /// The difference `b − a` in the surface's embedding (nearest periodic image on the torus).
    #[inline]
    pub fn delta(&self, a: Vec3, b: Vec3) -> Vec3 {
        let d = sub(b, a);
        match *self {
            Space::Sphere { .. } => d,
            Space::Torus { length, height } => [
                d[0] - length * (d[0] / length).round(),
                d[1] - height * (d[1] / height).round(),
                0.0,
            ],
        }
    }

    /// Maps a torus point into the fundamental domain; identity on the sphere.
    #[inline]
    pub fn wrap(&self, p: Vec3) -> Vec3 {
        match *self {
            Space::Sphere { .. } => p,
            Space::Torus { length, height } => {
                [p[0].rem_euclid(length), p[1].rem_euclid(height), 0.0]
            }
        }
    }

    /// Geodesic distance in metres (great-circle arc on the sphere).
    #[inline]
    pub fn distance(&self, a: Vec3, b: Vec3) -> f64 {
        match *self {
            Space::Sphere { radius } => radius * norm(cross(a, b)).atan2(dot(a, b)),
            Space::Torus { .. } => norm(self.delta(a, b)),
        }
    }

    /// Midpoint of the geodesic between `a` and `b`.
    #[inline]
    pub fn midpoint(&self, a: Vec3, b: Vec3) -> Vec3 {
        match *self {
            Space::Sphere { .. } => normalize(add(a, b)),
            Space::Torus { .. } => self.wrap(add(a, scale(self.delta(a, b), 0.5))),
        }
    }

    /// Circumcentre of a triangle given counter-clockwise.
    pub fn circumcenter(&self, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
        match *self {
            Space::Sphere { .. } => normalize(cross(sub(b, a), sub(c, a))),
            Space::Torus { .. } => {
                let (ab, ac) = (self.delta(a, b), self.delta(a, c));
                let d = 2.0 * (ab[0] * ac[1] - ab[1] * ac[0]);
                let (b2, c2) = (dot(ab, ab), dot(ac, ac));
                let ux = (ac[1] * b2 - ab[1] * c2) / d;
                let uy = (ab[0] * c2 - ac[0] * b2) / d;
                self.wrap([a[0] + ux, a[1] + uy, 0.0])
            }
        }
    }

    /// Area (m²) of the geodesic triangle `a, b, c` given counter-clockwise (signed).
    pub fn triangle_area(&self, a: Vec3, b: Vec3, c: Vec3) -> f64 {
        match *self {
            Space::Sphere { radius } => {
                // Van Oosterom–Strackee: tan(E/2) = a·(b×c) / (1 + a·b + b·c + c·a)
                let num = dot(a, cross(b, c));
                let den = 1.0 + dot(a, b) + dot(b, c) + dot(c, a);
                2.0 * num.atan2(den) * radius * radius
            }
            Space::Torus { .. } => {
                let (ab, ac) = (self.delta(a, b), self.delta(a, c));
                0.5 * (ab[0] * ac[1] - ab[1] * ac[0])
            }
        }
    }

    /// Local east, north and up unit vectors at `p`.
    pub fn local_frame(&self, p: Vec3) -> (Vec3, Vec3, Vec3) {
        match *self {
            Space::Sphere { .. } => {
                let h = (p[0] * p[0] + p[1] * p[1]).sqrt();
                let east = if h > 1e-15 {
                    [-p[1] / h, p[0] / h, 0.0]
                } else {
                    [0.0, 1.0, 0.0]
                };
                (east, cross(p, east), p)
            }
            Space::Torus { .. } => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        }
    }

    /// Zonal and meridional components of vector `v` in the local frame at `p`.
    #[inline]
    pub fn components(&self, p: Vec3, v: Vec3) -> (f64, f64) {
        let (e, n, _) = self.local_frame(p);
        (dot(v, e), dot(v, n))
    }

    /// Latitude and longitude (radians) of a point; zero on the torus.
    pub fn lat_lon(&self, p: Vec3) -> (f64, f64) {
        match self {
            Space::Sphere { .. } => lat_lon_of_unit(p),
            Space::Torus { .. } => (0.0, 0.0),
        }
    }

    /// Total area of the surface (m²).
    pub fn total_area(&self) -> f64 {
        match *self {
            Space::Sphere { radius } => 4.0 * std::f64::consts::PI * radius * radius,
            Space::Torus { length, height } => length * height,
        }
    }
}
