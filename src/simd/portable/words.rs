//! The words family on this backend.
