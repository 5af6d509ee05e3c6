//! Views: each renders one engine result type (the engine's own report structs); none
//! recomputes a decision.

pub mod diagnostics;
pub mod disruption;
pub mod placement;
pub mod rollout;

use chrono::{DateTime, Utc};
use std::ops::Deref;
use std::rc::Rc;

/// A report (or part of one) handed to a view. Props compare by identity: a new evaluation
/// is a new `Rc`, so re-rendering the root never walks a 10,000-cluster report to find it
/// unchanged, and the report is never copied.
#[derive(Debug)]
pub struct Shared<T: ?Sized>(pub Rc<T>);

impl Default for Shared<str> {
    fn default() -> Self {
        Shared(Rc::from(""))
    }
}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T: ?Sized> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: ?Sized> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> From<Rc<T>> for Shared<T> {
    fn from(r: Rc<T>) -> Self {
        Shared(r)
    }
}

/// An instant as the UI shows it: `Mon 2026-03-02 08:00 UTC`.
pub fn when(t: DateTime<Utc>) -> String {
    t.format("%a %Y-%m-%d %H:%M UTC").to_string()
}

/// An instant in a table cell: `03-02 08:00`.
pub fn short(t: DateTime<Utc>) -> String {
    t.format("%m-%d %H:%M").to_string()
}
