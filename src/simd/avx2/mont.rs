//! The mont family on this backend.
