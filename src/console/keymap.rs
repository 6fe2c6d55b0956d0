//! The one table of keys: it drives dispatch, the footer hints and the `?` help screen,
//! so nothing about keys is written twice.

use std::borrow::Cow;
use std::sync::LazyLock;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::action::{Action, Move};
pub use super::context::Context;
use super::field::InputRequest;
use super::tab::Tab;

/// What sets off a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A key with exactly these modifiers (Shift is ignored for characters and
    /// Shift-Tab, whose code already says it).
    Key(KeyCode, KeyModifiers),
    /// Any printable character, typed into the focused text field.
    Typing,
    WheelUp,
    WheelDown,
    /// A press of the left mouse button, anywhere (the update step finds what is there).
    LeftClick,
}

impl Trigger {
    /// How the trigger is written in hints and help.
    pub fn label(self) -> String {
        match self {
            Trigger::Typing => "type".to_owned(),
            Trigger::WheelUp => "wheel↑".to_owned(),
            Trigger::WheelDown => "wheel↓".to_owned(),
            Trigger::LeftClick => "click".to_owned(),
            Trigger::Key(code, mods) => {
                let name = match code {
                    KeyCode::Char(' ') => "Space".to_owned(),
                    KeyCode::Char(c) => c.to_string(),
                    KeyCode::Up => "↑".to_owned(),
                    KeyCode::Down => "↓".to_owned(),
                    KeyCode::Left => "←".to_owned(),
                    KeyCode::Right => "→".to_owned(),
                    KeyCode::PageUp => "PgUp".to_owned(),
                    KeyCode::PageDown => "PgDn".to_owned(),
                    KeyCode::Home => "Home".to_owned(),
                    KeyCode::End => "End".to_owned(),
                    KeyCode::Enter => "Enter".to_owned(),
                    KeyCode::Esc => "Esc".to_owned(),
                    KeyCode::Tab => "Tab".to_owned(),
                    KeyCode::BackTab => "Shift-Tab".to_owned(),
                    KeyCode::Backspace => "Backspace".to_owned(),
                    KeyCode::Delete => "Delete".to_owned(),
                    other => format!("{other:?}"),
                };
                if mods.contains(KeyModifiers::CONTROL) {
                    format!("Ctrl-{name}")
                } else if mods.contains(KeyModifiers::ALT) {
                    format!("Alt-{name}")
                } else {
                    name
                }
            }
        }
    }
}

/// One row of the key table.
#[derive(Debug, Clone)]
pub struct Binding {
    pub context: Context,
    pub triggers: Cow<'static, [Trigger]>,
    pub action: Action,
    pub help: Cow<'static, str>,
    /// The footer's short word for it, when the footer shows it (and the action applies).
    pub hint: Option<&'static str>,
}

const NONE: KeyModifiers = KeyModifiers::NONE;

const fn key(code: KeyCode) -> Trigger {
    Trigger::Key(code, NONE)
}

const fn ch(c: char) -> Trigger {
    Trigger::Key(KeyCode::Char(c), NONE)
}

const fn ctrl(code: KeyCode) -> Trigger {
    Trigger::Key(code, KeyModifiers::CONTROL)
}

const fn alt(code: KeyCode) -> Trigger {
    Trigger::Key(code, KeyModifiers::ALT)
}

/// An editing request to the text field with the keyboard.
const fn edit(request: InputRequest) -> Action {
    Action::Edit(request)
}

/// A row of the table as written: one binding, or the number keys of every tab.
enum Entry {
    One(Binding),
    /// A key per tab, from [`Tab::ALL`]: "1" shows the first tab, and so on. The first
    /// one's help ends with `first_also`.
    TabKeys {
        context: Context,
        first_also: &'static str,
    },
    /// The [`ROW_ACTIONS`], in this context.
    RowActions(Context),
    /// The keys of every [`Move`] ([`MOVES`]), each with its help in that order; the
    /// first one carries `hint`.
    Moves {
        context: Context,
        help: [&'static str; 6],
        hint: Option<&'static str>,
    },
}

/// What can be asked about the selected row, from its list or its detail pane alike:
/// key, action, help, and the footer's word.
const ROW_ACTIONS: [(char, Action, &str, &str); 4] = [
    ('a', Action::Answer, "answer the callback", "answer"),
    (
        'o',
        Action::Owner,
        "set owner and escalation time (jobs marked in Aged: all of them at once, after a plan)",
        "owner",
    ),
    ('r', Action::Retry, "request a retry (checked)", "retry"),
    ('c', Action::Cancel, "request a cancel (checked)", "cancel"),
];

/// The keys that move the selection or scroll, wherever something moves.
const MOVES: [(Move, &[Trigger]); 6] = [
    (
        Move::Down,
        &[key(KeyCode::Down), ch('j'), Trigger::WheelDown],
    ),
    (Move::Up, &[key(KeyCode::Up), ch('k'), Trigger::WheelUp]),
    (Move::PageDown, &[key(KeyCode::PageDown)]),
    (Move::PageUp, &[key(KeyCode::PageUp)]),
    (Move::Home, &[key(KeyCode::Home), ch('g')]),
    (Move::End, &[key(KeyCode::End), ch('G')]),
];

const fn bind(
    context: Context,
    triggers: &'static [Trigger],
    action: Action,
    help: &'static str,
    hint: Option<&'static str>,
) -> Entry {
    Entry::One(Binding {
        context,
        triggers: Cow::Borrowed(triggers),
        action,
        help: Cow::Borrowed(help),
        hint,
    })
}

const fn moves(context: Context, help: [&'static str; 6], hint: Option<&'static str>) -> Entry {
    Entry::Moves {
        context,
        help,
        hint,
    }
}

const fn tab_keys(context: Context, first_also: &'static str) -> Entry {
    Entry::TabKeys {
        context,
        first_also,
    }
}

impl Entry {
    /// The bindings this row of the table stands for.
    fn bindings(&self) -> Vec<Binding> {
        match self {
            Entry::One(binding) => vec![binding.clone()],
            Entry::TabKeys {
                context,
                first_also,
            } => Tab::ALL
                .iter()
                .enumerate()
                .map(|(i, &tab)| Binding {
                    context: *context,
                    triggers: Cow::Owned(vec![ch(tab.key())]),
                    action: Action::ShowTab(tab),
                    help: Cow::Owned(format!(
                        "{} view{}",
                        tab.title(),
                        if i == 0 { *first_also } else { "" }
                    )),
                    hint: None,
                })
                .collect(),
            Entry::RowActions(context) => ROW_ACTIONS
                .iter()
                .map(|&(key, action, help, hint)| Binding {
                    context: *context,
                    triggers: Cow::Owned(vec![ch(key)]),
                    action,
                    help: Cow::Borrowed(help),
                    hint: Some(hint),
                })
                .collect(),
            Entry::Moves {
                context,
                help,
                hint,
            } => MOVES
                .iter()
                .zip(help)
                .enumerate()
                .map(|(i, ((movement, triggers), help))| Binding {
                    context: *context,
                    triggers: Cow::Borrowed(*triggers),
                    action: Action::Move(*movement),
                    help: Cow::Borrowed(*help),
                    hint: if i == 0 { *hint } else { None },
                })
                .collect(),
        }
    }
}

/// `e`, in a list of callbacks and in a callback's detail alike.
const EXPORT_HELP: &str = "export the evidence bundle of the callback or job (raw message, comparison, timeline, answers, owner, requests) to jobledger-case-SEQ.md or jobledger-job-JOB.md here";

/// A click in the table: where it landed is filled in from the mouse event.
const CLICK: Action = Action::Click { column: 0, row: 0 };

use Context::{
    Bulk, BulkOwner, Command, Compare, Confirm, ConfirmView, Detail, Editing, Everywhere, Filter,
    Form, Help, List, Outcome, Owner, OwnerPlan, Plan, Refused, SavedViews, Tour, Withdraw,
};

/// A character key with Ctrl.
const fn ctrl_ch(c: char) -> Trigger {
    ctrl(KeyCode::Char(c))
}

/// A character key with Alt (Meta).
const fn alt_ch(c: char) -> Trigger {
    alt(KeyCode::Char(c))
}

/// Every key of the console, as written.
#[rustfmt::skip]
const TABLE: &[Entry] = &[
    bind(Everywhere, &[Trigger::Key(KeyCode::Char('c'), KeyModifiers::CONTROL)], Action::Quit, "leave at once, from anywhere (forms too)", None),
    // Lists.
    moves(List, ["next row", "previous row", "next page", "previous page", "first row", "last row"], Some("move")),
    bind(List, &[key(KeyCode::Tab), key(KeyCode::Right)], Action::NextTab, "next view", Some("next view")),
    bind(List, &[key(KeyCode::BackTab), key(KeyCode::Left)], Action::PrevTab, "previous view", None),
    tab_keys(List, ""),
    bind(List, &[key(KeyCode::Enter)], Action::OpenDetail, "detail of the row (a finding: its jobs)", Some("detail")),
    bind(List, &[ch('/')], Action::Filter, "filter with a query, terms joined by AND: job: delivery: reason: disposition: outcome: verdict: reviewer: owner: (owner:none for no owner) answered:yes|no by: (text fields match what contains the value; closed sets are checked; names and text in any case); gap>1h age>2d arrived<2026-11-27T14:00 timeout>= escalates<= (a day alone is all of it for <= and >); bare words match ids and reasons; -term negates; \"quotes\" hold spaces. A view refuses a field it lacks, naming its own", Some("filter")),
    bind(List, &[ch('s')], Action::SortNext, "sort by the next column (gap, arrival, timeout, reason; in Aged: escalation, accepted, owner)", Some("sort")),
    bind(List, &[ch('S')], Action::SortReverse, "reverse the sort", None),
    bind(List, &[ch(':')], Action::Command, "command: :save NAME saves this view's tab and query in the ledger (a name in use: asked before it is replaced); :q leaves", None),
    bind(List, &[ch('\'')], Action::SavedViews, "saved views: Enter shows one (its tab and query), d deletes one", None),
    bind(List, &[ch('O')], Action::ToggleOpen, "held, quarantined: the open questions only, or all", None),
    Entry::RowActions(List),
    bind(List, &[ch('w')], Action::Withdraw, "withdraw the pending request (Outbox)", Some("withdraw")),
    // No footer hint: at 80 columns it would push `q quit` off the footer.
    bind(List, &[ch('C')], Action::Compare, "compare a held callback with what it conflicts with", None),
    bind(List, &[ch('n')], Action::NextNew, "next row new since you last looked (Held, Quarantined, Aged)", None),
    bind(List, &[ch('N')], Action::PrevNew, "previous row new since you last looked", None),
    bind(List, &[ch('t')], Action::Claim, "claim the case for yourself (\"on it\", 30 min, shown to everyone), or release your claim", None),
    bind(List, &[ch('y')], Action::CopyJobId, "copy the row's job id (to the terminal's clipboard)", None),
    bind(List, &[ch('Y')], Action::CopyDeliveryId, "copy the callback's delivery id", None),
    bind(List, &[ch('e')], Action::Export, EXPORT_HELP, None),
    bind(List, &[Trigger::LeftClick], CLICK, "select the row or the view clicked", None),
    bind(List, &[ch('?')], Action::Help, "help: every key", Some("help")),
    bind(List, &[key(KeyCode::Esc)], Action::Back, "clear the filter, close a finding (never leaves)", None),
    bind(List, &[ch('q')], Action::BackOrQuit, "a finding's jobs: back to the findings; otherwise leave", Some("quit")),
    // Marking rows for a bulk write: `a` then answers the marked callbacks, `o` gives
    // the marked aged jobs an owner.
    bind(List, &[ch(' ')], Action::Mark, "mark or unmark the row, then next row (callbacks: a answers the marked ones; Aged: o gives the marked jobs an owner)", Some("mark")),
    bind(List, &[ch('V')], Action::MarkAll, "mark every row the filter matches (all pages)", None),
    bind(List, &[ch('x')], Action::ClearMarks, "clear the view's marks", Some("clear marks")),
    // No footer hint: the tour is the presenter's, and `?` lists it.
    bind(List, &[ch('T')], Action::Tour, "the guided tour of the demo's booking afternoon, step by step (as jobledger demo --tour starts; back to the step left)", None),
    // The detail pane.
    moves(Detail, ["scroll down", "scroll up", "scroll a page down", "scroll a page up", "top of the detail", "end of the detail"], Some("scroll")),
    bind(Detail, &[ch('n')], Action::NextRow, "next row", Some("next row")),
    bind(Detail, &[ch('p')], Action::PrevRow, "previous row", Some("previous row")),
    Entry::RowActions(Detail),
    bind(Detail, &[ch('C')], Action::Compare, "compare a held callback with what it conflicts with", Some("compare")),
    bind(Detail, &[ch('t')], Action::Claim, "claim the case for yourself, or release your claim", None),
    bind(Detail, &[ch('y')], Action::CopyJobId, "copy the row's job id (to the terminal's clipboard)", None),
    bind(Detail, &[ch('Y')], Action::CopyDeliveryId, "copy the callback's delivery id", None),
    bind(Detail, &[ch('e')], Action::Export, EXPORT_HELP, None),
    bind(Detail, &[Trigger::LeftClick], CLICK, "select the row or the view clicked", None),
    bind(Detail, &[ch('T')], Action::Tour, "the guided tour of the demo's booking afternoon", None),
    tab_keys(Detail, " (closes the detail)"),
    bind(Detail, &[ch('?')], Action::Help, "help: every key", None),
    bind(Detail, &[key(KeyCode::Esc), ch('q'), key(KeyCode::Enter)], Action::Back, "back to the list", Some("back to the list")),
    // Typing a filter.
    bind(Filter, &[Trigger::Typing], Action::Input(' '), "add to the filter (applied as you type)", None),
    bind(Filter, &[key(KeyCode::Enter)], Action::Submit, "keep the filter", Some("keep the filter")),
    bind(Filter, &[key(KeyCode::Esc)], Action::Back, "put the old filter back", Some("put the old one back")),
    // A command, and the saved views.
    bind(Command, &[Trigger::Typing], Action::Input(' '), "type the command (save NAME, or q to leave)", None),
    bind(Command, &[key(KeyCode::Enter)], Action::Submit, "run the command", Some("run")),
    bind(Command, &[key(KeyCode::Esc)], Action::Back, "close without running", Some("close")),
    moves(SavedViews, ["next view", "previous view", "a page down", "a page up", "first view", "last view"], Some("move")),
    bind(SavedViews, &[key(KeyCode::Enter)], Action::Submit, "show this view (its tab and query)", Some("show it")),
    bind(SavedViews, &[ch('d'), key(KeyCode::Delete)], Action::DeleteView, "delete this view (asked first; the ledger keeps who deleted it)", Some("delete")),
    bind(SavedViews, &[key(KeyCode::Esc), ch('q'), ch('\'')], Action::Back, "close", Some("close")),
    // A saved view replaced (:save under a name in use) or deleted: asked first.
    bind(ConfirmView, &[ch('y'), key(KeyCode::Enter)], Action::Submit, "yes: replace it, or delete it", Some("yes")),
    bind(ConfirmView, &[ch('n'), key(KeyCode::Esc), ch('q')], Action::Back, "no: leave it as it is", Some("no")),
    // The answer form: a verdict, then text fields.
    bind(Form, &[key(KeyCode::Down)], Action::Move(Move::Down), "next verdict", Some("next verdict")),
    bind(Form, &[key(KeyCode::Up)], Action::Move(Move::Up), "previous verdict", None),
    bind(Form, &[key(KeyCode::Tab)], Action::NextField, "next field", Some("next field")),
    bind(Form, &[key(KeyCode::BackTab)], Action::PrevField, "previous field", None),
    bind(Form, &[Trigger::Typing], Action::Input(' '), "type into the field (on the verdict: into the next field)", None),
    bind(Form, &[key(KeyCode::Enter)], Action::Submit, "write it now, then on to the next open row", Some("write it now")),
    bind(Form, &[key(KeyCode::Esc)], Action::Back, "close without writing", Some("close without writing")),
    // The owner form: two text fields.
    bind(Owner, &[key(KeyCode::Tab), key(KeyCode::Down)], Action::NextField, "the other field (owner, escalation time)", Some("other field")),
    bind(Owner, &[key(KeyCode::BackTab), key(KeyCode::Up)], Action::PrevField, "the other field", None),
    bind(Owner, &[Trigger::Typing], Action::Input(' '), "type into the field (a value shown selected is replaced)", None),
    bind(Owner, &[key(KeyCode::Enter)], Action::Submit, "write it now (unchanged: nothing is written)", Some("write it now")),
    bind(Owner, &[key(KeyCode::Esc)], Action::Back, "close without writing", Some("close without writing")),
    // Editing the text of a field, wherever text is typed. A value shown selected
    // (prefilled) is replaced by what is typed or cleared by a delete; a move keeps it.
    bind(Editing, &[key(KeyCode::Left), ctrl_ch('b')], edit(InputRequest::GoToPrevChar), "cursor left", None),
    bind(Editing, &[key(KeyCode::Right), ctrl_ch('f')], edit(InputRequest::GoToNextChar), "cursor right", None),
    bind(Editing, &[ctrl(KeyCode::Left), alt_ch('b')], edit(InputRequest::GoToPrevWord), "a word left", None),
    bind(Editing, &[ctrl(KeyCode::Right), alt_ch('f')], edit(InputRequest::GoToNextWord), "a word right", None),
    bind(Editing, &[key(KeyCode::Home), ctrl_ch('a')], edit(InputRequest::GoToStart), "to the start", None),
    bind(Editing, &[key(KeyCode::End), ctrl_ch('e')], edit(InputRequest::GoToEnd), "to the end", None),
    bind(Editing, &[key(KeyCode::Backspace), ctrl_ch('h')], edit(InputRequest::DeletePrevChar), "delete the character before the cursor", None),
    bind(Editing, &[key(KeyCode::Delete), ctrl_ch('d')], edit(InputRequest::DeleteNextChar), "delete the character under the cursor", None),
    bind(Editing, &[ctrl_ch('w'), alt(KeyCode::Backspace)], edit(InputRequest::DeletePrevWord), "delete the word before the cursor", None),
    bind(Editing, &[alt_ch('d'), ctrl(KeyCode::Delete)], edit(InputRequest::DeleteNextWord), "delete the word after the cursor", None),
    bind(Editing, &[ctrl_ch('u')], edit(InputRequest::DeleteFromStart), "delete to the start", None),
    bind(Editing, &[ctrl_ch('k')], edit(InputRequest::DeleteTillEnd), "delete to the end", None),
    // Confirming a request.
    bind(Confirm, &[ch('y'), key(KeyCode::Enter)], Action::Submit, "send the request to the outbox", Some("send to the outbox")),
    bind(Confirm, &[ch('n'), key(KeyCode::Esc), ch('q')], Action::Back, "don't send it", Some("don't send")),
    // A request already refused: no key sends it.
    bind(Refused, &[ch('n'), key(KeyCode::Esc), ch('q'), key(KeyCode::Enter)], Action::Back, "close; nothing is sent", Some("close, nothing is sent")),
    // Withdrawing a pending request (Outbox view).
    bind(Withdraw, &[Trigger::Typing], Action::Input(' '), "type a note (optional)", None),
    bind(Withdraw, &[key(KeyCode::Enter)], Action::Submit, "withdraw it now", Some("withdraw it")),
    bind(Withdraw, &[key(KeyCode::Esc)], Action::Back, "keep it pending; nothing is written", Some("keep it")),
    // The comparison pane of a held callback.
    moves(Compare, ["scroll down", "scroll up", "scroll a page down", "scroll a page up", "top of the comparison", "end of the comparison"], Some("scroll")),
    bind(Compare, &[key(KeyCode::Esc), ch('q'), ch('C')], Action::Back, "close the comparison", Some("close")),
    // A bulk answer: the verdict and note, then the plan.
    bind(Bulk, &[key(KeyCode::Down)], Action::Move(Move::Down), "next verdict", Some("next verdict")),
    bind(Bulk, &[key(KeyCode::Up)], Action::Move(Move::Up), "previous verdict", None),
    bind(Bulk, &[key(KeyCode::Tab), key(KeyCode::BackTab)], Action::NextField, "between verdict and note", Some("note")),
    bind(Bulk, &[Trigger::Typing], Action::Input(' '), "type the note", None),
    bind(Bulk, &[key(KeyCode::Enter)], Action::Submit, "show the plan (nothing is written yet)", Some("plan")),
    bind(Bulk, &[key(KeyCode::Esc)], Action::Back, "close; nothing is written", Some("close")),
    // The count is digits: `q` is free to close, as everywhere q is no text.
    bind(Plan, &[Trigger::Typing], Action::Input(' '), "type the count, when asked to confirm it", None),
    bind(Plan, &[key(KeyCode::Enter)], Action::Submit, "write the answers, in one transaction", Some("write them")),
    bind(Plan, &[key(KeyCode::Esc), ch('q')], Action::Back, "close; nothing is written", Some("close, nothing written")),
    // A bulk owner: the owner and escalation time, then the plan and its count.
    bind(BulkOwner, &[key(KeyCode::Tab), key(KeyCode::Down)], Action::NextField, "the other field (owner, escalation time)", Some("other field")),
    bind(BulkOwner, &[key(KeyCode::BackTab), key(KeyCode::Up)], Action::PrevField, "the other field", None),
    bind(BulkOwner, &[Trigger::Typing], Action::Input(' '), "type into the field (a value shown selected is replaced)", None),
    bind(BulkOwner, &[key(KeyCode::Enter)], Action::Submit, "show the plan: which jobs take the owner, which have it already (nothing is written yet)", Some("plan")),
    bind(BulkOwner, &[key(KeyCode::Esc)], Action::Back, "close; nothing is written", Some("close")),
    // The count is digits: `q` is free to close, as everywhere q is no text.
    bind(OwnerPlan, &[Trigger::Typing], Action::Input(' '), "type the count the plan gives", None),
    bind(OwnerPlan, &[key(KeyCode::Enter)], Action::Submit, "write the owners, in one transaction, once the count typed is the plan's (refused, nothing written, if the ledger moved since)", Some("write them")),
    bind(OwnerPlan, &[key(KeyCode::Esc), ch('q')], Action::Back, "close; nothing is written", Some("close, nothing written")),
    // What came of a form.
    bind(Outcome, &[key(KeyCode::Enter), key(KeyCode::Esc), ch('q')], Action::Back, "close", Some("close")),
    // The guided tour: a presenter's remote sends PgDn/PgUp or the arrows.
    bind(Tour, &[key(KeyCode::Right), ch(' '), key(KeyCode::PageDown), ch('n')], Action::TourNext, "next step: the console moves to what it says (after the last, the tour ends)", Some("next")),
    bind(Tour, &[key(KeyCode::Left), key(KeyCode::PageUp), ch('p')], Action::TourBack, "the step before", Some("back")),
    bind(Tour, &[key(KeyCode::Down), ch('j'), Trigger::WheelDown], Action::Move(Move::Down), "scroll what the step shows (the comparison, the Reconcile view, a list)", Some("scroll")),
    bind(Tour, &[key(KeyCode::Up), ch('k'), Trigger::WheelUp], Action::Move(Move::Up), "scroll back", None),
    bind(Tour, &[ch('?')], Action::Help, "help: every key", Some("help")),
    bind(Tour, &[key(KeyCode::Esc), ch('q')], Action::Back, "leave the tour: the console stays where the step put it (T comes back to this step)", Some("leave the tour")),
    // Help.
    moves(Help, ["scroll down", "scroll up", "scroll a page down", "scroll a page up", "top of the help", "end of the help"], None),
    bind(Help, &[key(KeyCode::Esc), ch('?'), ch('q')], Action::Back, "close the help", Some("close the help")),
];

/// Every key of the console: the table with its number keys spelled out.
pub fn keymap() -> &'static [Binding] {
    static KEYMAP: LazyLock<Vec<Binding>> =
        LazyLock::new(|| TABLE.iter().flat_map(Entry::bindings).collect());
    &KEYMAP
}

/// Does the key code itself say that Shift was held? A capital letter or `?` arrives
/// with Shift, and so does Shift-Tab on most terminals (crossterm reports `BackTab`
/// with SHIFT there, without it on others); the code already says so, so the
/// modifier is no part of the match.
fn shift_is_in_the_code(code: KeyCode) -> bool {
    matches!(code, KeyCode::Char(_) | KeyCode::BackTab)
}

fn matches_key(trigger: Trigger, key: &KeyEvent) -> bool {
    let Trigger::Key(code, mods) = trigger else {
        return false;
    };
    let pressed = if shift_is_in_the_code(key.code) {
        key.modifiers - KeyModifiers::SHIFT
    } else {
        key.modifiers
    };
    code == key.code && mods == pressed
}

/// Is text typed in `context` (so the [`Context::Editing`] keys work there)?
pub fn takes_text(context: Context) -> bool {
    bindings(context).any(|b| b.triggers.contains(&Trigger::Typing))
}

/// The action a key press asks for in `context`, if any.
pub fn action_for_key(context: Context, key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let editing = takes_text(context);
    let in_context = |b: &&Binding| {
        b.context == context || b.context == Everywhere || (editing && b.context == Editing)
    };
    if let Some(found) = keymap()
        .iter()
        .filter(in_context)
        .find(|b| b.triggers.iter().any(|t| matches_key(*t, key)))
    {
        return Some(found.action);
    }
    let typed = match key.code {
        KeyCode::Char(c)
            if !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            c
        }
        _ => return None,
    };
    keymap()
        .iter()
        .filter(in_context)
        .find(|b| b.triggers.contains(&Trigger::Typing))
        .map(|_| Action::Input(typed))
}

/// The action a mouse event asks for in `context`, if any (a click carries where it
/// landed).
pub fn action_for_mouse(context: Context, mouse: &MouseEvent) -> Option<Action> {
    let trigger = match mouse.kind {
        MouseEventKind::ScrollDown => Trigger::WheelDown,
        MouseEventKind::ScrollUp => Trigger::WheelUp,
        MouseEventKind::Down(MouseButton::Left) => Trigger::LeftClick,
        _ => return None,
    };
    keymap()
        .iter()
        .find(|b| b.context == context && b.triggers.contains(&trigger))
        .map(|b| match b.action {
            Action::Click { .. } => Action::Click {
                column: mouse.column,
                row: mouse.row,
            },
            action => action,
        })
}

/// The bindings of a context, in table order (the help screen).
pub fn bindings(context: Context) -> impl Iterator<Item = &'static Binding> {
    keymap().iter().filter(move |b| b.context == context)
}

/// The keys of a binding as one label: `↓ j wheel↓`.
pub fn keys_label(binding: &Binding) -> String {
    binding
        .triggers
        .iter()
        .map(|t| t.label())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The footer's hints for a context: the first key of each hinted binding and its word.
pub fn hints(context: Context, applies: impl Fn(Action) -> bool) -> Vec<Hint> {
    bindings(context)
        .filter(|b| applies(b.action))
        .filter_map(|b| {
            Some(Hint {
                keys: b.triggers[0].label(),
                help: b.hint?,
                // The ways out and to the help: a narrow footer keeps these first.
                essential: matches!(
                    b.action,
                    Action::Help | Action::Quit | Action::Back | Action::BackOrQuit
                ),
                action: b.action,
            })
        })
        .collect()
}

/// One hint of the footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// The first key that does it, as written.
    pub keys: String,
    /// The footer's word for it.
    pub help: &'static str,
    /// A way out or to the help, kept when the footer is too narrow for every hint.
    pub essential: bool,
    /// What the key does.
    pub action: Action,
}

#[cfg(test)]
mod tests;
