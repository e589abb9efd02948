//! Typed commands, one module per domain.

pub mod agents;
pub mod app;
pub mod attempts;
pub mod catalog;
pub mod keys;
pub mod roles;
pub mod routing;
pub mod runs;
pub mod workers;
