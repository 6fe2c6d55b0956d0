//! The drawing of each view, the detail pane, forms and help; and the few helpers
//! they share. Every string that came from outside becomes a span through [`outside`].

pub(crate) mod bulk;
pub(crate) mod bulk_owner;
pub(crate) mod callbacks;
pub(crate) mod compare;
pub(crate) mod decisions_form;
pub(crate) mod detail;
pub(crate) mod findings;
pub(crate) mod form;
pub(crate) mod form_lines;
pub(crate) mod help;
pub(crate) mod jobs;
pub(crate) mod outbox;
pub(crate) mod preview;
pub(crate) mod reconcile;
pub(crate) mod saved;
pub(crate) mod status;
pub(crate) mod table;
pub(crate) mod tour;
pub(crate) mod trend;
pub(crate) mod wrap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Stylize;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::field::TextField;
use super::model::TabRow;
use super::model::counts::Count;
use super::model::{ListId, Model};
use super::tab::Tab;
use crate::clock::{Timestamp, relative_age};
use crate::inert::inert;
use crate::store::AnswerRow;
pub(crate) use preview::{Fact, FactsFn};
pub(crate) use table::Column;

/// How `tab` is drawn: the one place a view is named for its tab (beside the
/// `mod` line its file needs anyway). The model names the tab's page in `tab.rs`,
/// and cannot name its drawing without importing the views.
pub(crate) fn of(tab: Tab) -> &'static dyn TabView {
    match tab {
        Tab::Held => &callbacks::HELD,
        Tab::Quarantined => &callbacks::QUARANTINED,
        Tab::Aged => &jobs::AGED,
        Tab::Failed => &jobs::FAILED,
        Tab::Callbacks => &callbacks::ALL,
        Tab::Reconcile => &reconcile::Reconcile,
        Tab::Outbox => &outbox::OUTBOX,
        Tab::Rejected => &outbox::REJECTED,
    }
}

/// A tab's view: draws the tab's part of the model into the list area, and the
/// preview of its selected row below it when there is room for one.
pub(crate) trait TabView: Sync {
    /// Draws the current tab (`model.tab`) into `area` (and `preview`).
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, preview: Option<Rect>, model: &Model);
}

impl<T: TabRow> TabView for ListView<T> {
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, preview: Option<Rect>, model: &Model) {
        // A tab whose page holds other rows than its view draws would be a slip in
        // `views::of`; the console test draws every tab, so it shows there as a blank.
        if let Some(page) = model.lists.page::<T>(model.tab) {
            let fitted = table::draw_list(frame, area, model, self, page);
            // The selected row is one of an earlier text's while the filter is no query.
            if let Some(preview) = preview.filter(|_| page.invalid.is_none()) {
                preview::draw(frame, preview, model, self, page, &fitted);
            }
        }
    }
}

/// The characters of one outside string drawn at most. A screen shows a few thousand;
/// a megabyte-long job id, made inert and laid out whole, cost every frame a tenth of
/// a second (tests/hostile_input.rs).
const INERT_SPAN_CHARS: usize = 4096;

/// Text that came from an event (ids, payloads, notes, names), made inert for the terminal.
pub(crate) fn inert_span(text: &str) -> Span<'_> {
    match text.char_indices().nth(INERT_SPAN_CHARS) {
        None => Span::raw(inert(text)),
        Some((cut, _)) => Span::raw(format!(
            "{}… ({} bytes in all)",
            inert(&text[..cut]),
            text.len()
        )),
    }
}

/// ` (as ROLE)` after a person's name, when the ledger knows the database role that
/// wrote their row (a PostgreSQL ledger's; see [`crate::signed`]); nothing on a file,
/// whose screens stay as they were.
pub(crate) fn role_span(written_by: Option<&str>) -> Option<Span<'static>> {
    written_by.map(|role| Span::raw(crate::signed::as_role(Some(role))).dark_gray())
}

/// A text field's text, and when it has the keyboard its cursor: the cell under it
/// drawn reversed (a space past the end), and a prefilled value still selected drawn
/// black on cyan, so that it shows that typing replaces it.
pub(crate) fn text_field(field: &TextField, focused: bool) -> Vec<Span<'_>> {
    let text = field.text();
    if !focused {
        return vec![inert_span(text)];
    }
    if field.is_selected() {
        return vec![
            inert_span(text).black().on_cyan(),
            Span::raw(" ").reversed(),
        ];
    }
    let (before, rest) = text.split_at(cursor_byte(field));
    with_cursor(before, rest)
}

/// A focused text field on a line `width` columns wide (the filter, a command): when
/// the text is wider, the part before the cursor that fits, after a `…`, so that the
/// cursor is always on screen.
pub(crate) fn text_line(field: &TextField, width: usize) -> Vec<Span<'_>> {
    let text = field.text();
    let at = cursor_byte(field);
    // Room for the text before the cursor: less the `…` and the cursor's own cell.
    let room = width.saturating_sub(2);
    let mut start = at;
    let mut used = 0;
    for (i, c) in text[..at].char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used > room {
            break;
        }
        start = i;
    }
    if field.is_selected() || start == 0 {
        return text_field(field, true);
    }
    let mut spans = vec![Span::raw("…").dark_gray()];
    spans.extend(with_cursor(&text[start..at], &text[at..]));
    spans
}

/// Where the cursor is in the field's text, in bytes.
fn cursor_byte(field: &TextField) -> usize {
    let text = field.text();
    text.char_indices()
        .nth(field.cursor())
        .map_or(text.len(), |(i, _)| i)
}

/// `before`, then the cursor on the first character of `rest` (or a space), then the
/// rest of `rest`.
fn with_cursor<'a>(before: &'a str, rest: &'a str) -> Vec<Span<'a>> {
    let under = rest.chars().next().map_or(0, char::len_utf8);
    let (under, after) = rest.split_at(under);
    let cursor = if under.is_empty() {
        Span::raw(" ")
    } else {
        inert_span(under)
    };
    vec![inert_span(before), cursor.reversed(), inert_span(after)]
}

/// A time, in the one form a person reads it at `now` ([`Timestamp::readable`]):
/// `11-27 13:12:01` in the current year, `2027-02-27 00:00:00` in another.
pub(crate) fn when(at: Timestamp, now: Timestamp) -> String {
    at.readable(now)
}

/// A time that may be missing.
pub(crate) fn when_or_dash(at: Option<Timestamp>, now: Timestamp) -> String {
    at.map_or_else(|| "-".to_owned(), |at| when(at, now))
}

/// The standing answer of a row: verdict, by whom, how long ago (the preview says
/// when); or that none was given.
pub(crate) fn answer_cell(answer: Option<&AnswerRow>, now: Timestamp) -> Line<'_> {
    let Some(a) = answer else {
        return Line::from(Span::raw("unanswered").light_red());
    };
    let verdict = inert_span(a.verdict.as_str());
    let verdict = if a.verdict.closes() {
        verdict.green()
    } else {
        verdict.yellow()
    };
    let mut spans = vec![
        verdict,
        Span::raw(" by ").dark_gray(),
        inert_span(&a.reviewer),
    ];
    spans.extend(role_span(a.written_by.as_deref()));
    spans.push(Span::raw(format!(" {}", relative_age(a.answered_at, now))).dark_gray());
    Line::from(spans)
}

/// A list view: what its title says, its columns, the facts its preview always
/// shows, and the sentence when it is empty.
pub(crate) struct ListView<T: 'static> {
    /// Said after the count in the title ("held for a person").
    pub what: &'static str,
    /// Said after "N of M" when the view lists open questions only ("held still open").
    pub open_what: &'static str,
    pub columns: &'static [Column<T>],
    /// What the preview of the selected row shows whatever the width (what the row
    /// cut comes after it).
    pub facts: FactsFn<T>,
    pub empty: &'static str,
}

/// The list's title: the view, how many rows it lists and of what, and whether it
/// shows open questions only or all of them; the order it is sorted in, and the rows
/// marked. When it is longer than `room` columns, the hint and the words of the count
/// go first, then the view's name (the tab bar has it): the sort and the marks stay.
pub(crate) fn list_title(
    model: &Model,
    what: &str,
    open_what: &str,
    count: Count,
    sort: crate::filter::Sort,
    room: usize,
) -> String {
    let view = model.tab.title();
    // Until a search's rows come, the rows shown are the previous filter's: the
    // title says so rather than counting them as this filter's.
    if model.searching_shown() {
        return format!(" {view} · searching… · rows of the previous filter ");
    }
    let sorted = sort
        .short_label()
        .map_or_else(String::new, |label| format!(" · {label}"));
    let marked = bulk::marked_in_title(model);
    // The rows are this filter's; how many there are is not known yet.
    if count.counting {
        return [
            match model.filter() {
                Some(_) => format!(" {view} · counting the rows that match…{sorted}{marked} "),
                None => format!(" {view} · counting the rows…{sorted}{marked} "),
            },
            format!(" {view} · counting…{sorted}{marked} "),
        ]
        .into_iter()
        .find(|t| t.chars().count() <= room)
        .unwrap_or_else(|| format!(" counting…{sorted}{marked} "));
    }
    let filtered = if model.filter().is_some() {
        " (filtered)"
    } else {
        ""
    };
    let listed = count.listed();
    let shown = count.shown_of_all();
    let (text, plain) = match count.open {
        Some(_) if count.open_only => (
            format!("{shown} {open_what}{filtered} · O shows all"),
            format!("{shown}{filtered}"),
        ),
        Some(open) => (
            format!(
                "{shown} {}{filtered}, {open} still open · O shows those only",
                agreeing(listed, what)
            ),
            format!("{shown}{filtered}, {open} open"),
        ),
        None => (
            format!("{shown} {}{filtered}", agreeing(listed, what)),
            format!("{shown}{filtered}"),
        ),
    };
    let without_hint = text
        .split(" · O shows")
        .next()
        .unwrap_or_default()
        .to_owned();
    let shortest = format!(" {plain}{sorted}{marked} ");
    [
        format!(" {view} · {text}{sorted}{marked} "),
        format!(" {view} · {without_hint}{sorted}{marked} "),
        format!(" {view} · {plain}{sorted}{marked} "),
    ]
    .into_iter()
    .find(|t| t.chars().count() <= room)
    .unwrap_or(shortest)
}

/// `what` as it reads after a count of `n`: the first plural noun of a list's title
/// made singular for one ("1 job without a terminal record", not "1 jobs …").
fn agreeing(n: i64, what: &str) -> std::borrow::Cow<'_, str> {
    const PLURALS: [(&str, &str); 4] = [
        ("jobs", "job"),
        ("callbacks", "callback"),
        ("successes", "success"),
        ("ids", "id"),
    ];
    if n != 1 {
        return what.into();
    }
    let mut words: Vec<&str> = what.split(' ').collect();
    for word in &mut words {
        if let Some((_, one)) = PLURALS.iter().find(|(many, _)| many == word) {
            *word = one;
            return words.join(" ").into();
        }
    }
    what.into()
}

/// The title of each tab, in the order of the tabs: what the tab bar draws, and what
/// a click on it is measured against (`layout::tab_at`).
pub(crate) fn tab_titles(model: &Model) -> Vec<Line<'static>> {
    Tab::ALL
        .iter()
        .map(|tab| {
            let count = model.count(*tab);
            let shown = if *tab == Tab::Reconcile && !model.summary.counted {
                "…".to_owned()
            } else if model.searching == Some(ListId::Tab(*tab))
                || count.counting
                || model.lists.of(*tab).is_some_and(|l| l.invalid().is_some())
            {
                // The count is the previous filter's until the search's comes, or
                // while the text typed is no query.
                "…".to_owned()
            } else {
                count.shown_of_all()
            };
            let mut spans = vec![
                Span::raw(format!("{} ", tab.index() + 1)).dark_gray(),
                Span::raw(tab.title()),
                Span::raw(format!(" {shown}")).bold(),
            ];
            // What came or changed since the reviewer last looked at the list.
            if let Some(&n) = model.new_counts.get(tab).filter(|n| **n > 0) {
                spans.push(Span::raw(format!(" {n} new")).yellow().bold());
            }
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::agreeing;

    #[test]
    fn a_title_after_a_count_of_one_reads_singular() {
        let title = "jobs without a terminal record (Esc: back to the findings)";
        assert_eq!(
            agreeing(1, title),
            "job without a terminal record (Esc: back to the findings)"
        );
        assert_eq!(agreeing(2, title), title);
        assert_eq!(agreeing(0, title), title);
        assert_eq!(
            agreeing(1, "job ids submitted again with another identity"),
            "job id submitted again with another identity"
        );
        assert_eq!(agreeing(1, "failed jobs"), "failed job");
        assert_eq!(agreeing(1, "held for a person"), "held for a person");
    }
}
