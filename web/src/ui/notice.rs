//! The notice line (a link opened, another engine version) and the share box.

use yew::prelude::*;

/// Props of [`NoticeBar`].
#[derive(Properties, PartialEq)]
pub struct NoticeProps {
    /// The notice.
    pub text: AttrValue,
    /// Whether a session replaced by a link can be restored.
    pub can_restore: bool,
    /// Restore it.
    pub on_restore: Callback<()>,
    /// Hide the notice.
    pub on_dismiss: Callback<()>,
}

/// The notice.
#[function_component(NoticeBar)]
pub fn notice_bar(p: &NoticeProps) -> Html {
    html! {
        <div class="notice" role="status" id="notice">{ p.text.clone() }
            if p.can_restore {
                { " " }<button type="button" id="restore-previous" onclick={p.on_restore.reform(|_| ())}>{ "Restore your previous session" }</button>
            }
            <button type="button" onclick={p.on_dismiss.reform(|_| ())} aria-label="Dismiss notice">{ "×" }</button>
        </div>
    }
}

/// Props of [`ShareBox`].
#[derive(Properties, PartialEq)]
pub struct ShareProps {
    /// The link.
    pub url: AttrValue,
    /// The state evaluates at "now" (no instant chosen).
    pub at_now: bool,
}

/// The share link, with what the receiver should know about it.
#[function_component(ShareBox)]
pub fn share_box(p: &ShareProps) -> Html {
    let long = p.url.len() > crate::share::LONG_LINK;
    html! {
        <div class="share-box" role="status">
            <label for="share-url">{ "Share link (copied; it holds the whole state and the engine version):" }</label>
            <input id="share-url" type="text" readonly=true value={p.url.clone()} />
            if p.at_now {
                <p class="share-note" id="share-at-now">{ "This link evaluates at \"now\": whoever opens it sees the result at their own now, which may differ from yours. Set an evaluation time to share this exact result." }</p>
            }
            if long {
                <p class="share-note warn" id="share-long">{ format!(
                    "This link is {} characters long: chat tools, e-mail and some browsers cut links past a few thousand characters. Share the Inputs YAML file instead (it replays with the CLI) or trim the input.",
                    p.url.len()) }</p>
            }
        </div>
    }
}
