//! End-to-end tests against the real app window. See `harness.rs`.

mod harness;
mod keys;
mod models;
mod procs;
mod review;
mod roles;
mod route;
mod shell;
