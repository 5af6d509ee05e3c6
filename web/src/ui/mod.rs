//! The playground's parts, as function components: the root ([`crate::app`]) holds the state
//! and passes props down and callbacks up.

pub mod code_editor;
pub mod editor_pane;
pub mod gallery_nav;
pub mod notice;
pub mod result_pane;
pub mod topbar;
