//! The dots family on this backend.
