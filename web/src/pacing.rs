//! When the playground evaluates and saves: each model revision is evaluated in the
//! keystroke's task, in the next, or after an adaptive pause (the delay follows how long the
//! last evaluation took, so small inputs update at once and large ones never queue up behind
//! the keyboard); the state is saved locally once typing pauses.

use crate::model::{Model, Pace};
use crate::runner::{Runner, Shown};
use crate::share;
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// Local persistence waits for this pause in typing (writing a large state to localStorage
/// on every keystroke would cost the typist).
const SAVE_AFTER_MS: u32 = 400;

/// The pending evaluation and save, and the pace of typing they follow.
#[derive(Default)]
struct Timers {
    evaluate: Option<Timeout>,
    save: Option<Timeout>,
    pace: Pace,
}

fn perf() -> Option<web_sys::Performance> {
    web_sys::window()?.performance()
}

/// A Performance API mark (the browser tests time keystroke to result with them).
fn mark(name: &str) {
    if let Some(p) = perf() {
        let _ = p.mark(name);
    }
}

fn now_ms() -> f64 {
    perf().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// Evaluates each revision of `model` with `runner` into `shown`; a newer keystroke replaces
/// the pending timeout, cancelling it.
#[hook]
pub fn use_evaluations(
    model: &UseReducerHandle<Model>,
    shown: &UseStateHandle<Shown>,
    runner: &Rc<RefCell<Runner>>,
) {
    let timers = use_mut_ref(Timers::default);
    {
        let (model, shown, runner) = (model.clone(), shown.clone(), runner.clone());
        use_effect_with(model.rev, move |rev| {
            let rev = *rev;
            if shown.rev != rev {
                let delay = timers.borrow_mut().pace.delay(model.typing, now_ms());
                let t = timers.clone();
                let run = move || {
                    let started = now_ms();
                    mark("fleet:evaluate-start");
                    let next = runner.borrow_mut().run(&model.state, rev);
                    mark("fleet:evaluate-end");
                    shown.set(next);
                    let state = model.state.clone();
                    let mut timers = t.borrow_mut();
                    if model.typing {
                        timers.save =
                            Some(Timeout::new(SAVE_AFTER_MS, move || share::save(&state)));
                    } else {
                        timers.save = None;
                        share::save(&state);
                    }
                    timers.pace.evaluated(now_ms() - started);
                };
                match delay {
                    // In a microtask after Yew's scheduler run, still in the keystroke's task:
                    // inside the run, an evaluation that takes the run past 16 ms makes Yew
                    // yield to the browser (setTimeout) before the result renders, and the
                    // result then shows a frame later. A fresh run renders it at once.
                    None => {
                        timers.borrow_mut().evaluate = None;
                        yew::platform::spawn_local(async move { run() });
                    }
                    Some(ms) => timers.borrow_mut().evaluate = Some(Timeout::new(ms, run)),
                }
            }
        });
    }
    use_effect_with(shown.seq, |seq| {
        if *seq == 1 {
            mark("fleet:first-result");
        }
        mark("fleet:result");
    });
}
