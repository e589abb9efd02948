//! Switchyard's domain: the types every other crate speaks and the pure logic over them
//! (catalog parsing and scoring, routing, roles composition, planning, run state machines, and
//! [`review`]: the captured-diff model with its canonical hash and the gates over it).
//!
//! No IO, no async runtime, no `tauri`: everything here is a function of its inputs, so it is
//! tested without a disk, a network or a display. Types that cross the IPC boundary derive
//! `specta::Type` here, once, so the desktop shell and the CLI serialize the same shapes.

pub mod catalog;
pub mod doctor;
pub mod error;
mod hash;
pub mod info;
pub mod providers;
pub mod review;
pub mod roles;
pub mod routing;
