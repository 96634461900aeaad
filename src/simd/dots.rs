//! 16-bit pair dot products and 64-bit ring lanes (the kayles series kernels).
