//! Shared code of the fuzz targets (see `fuzz/README.md`).

pub mod checks;
