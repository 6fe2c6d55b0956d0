//! What the console shows, as plain data: one page of rows per view, the counts, the
//! detail pane, the open overlay, the flash and the size. No ledger: the update step
//! fills it in, the views draw it, and a test can build one by hand.

pub mod bulk;
pub mod bulk_owner;
pub mod compare;
pub mod counts;
pub mod decisions;
pub mod detail;
pub mod findings;
pub mod form;
mod lists;
pub mod marks;
pub mod page;
pub mod rows;
pub mod tour;
pub mod withdraw;

use crate::clock::{Clock, Timestamp};
use crate::filter::FilterError;
use crate::review::CaseKind;
use crate::store::{AgedJobRow, CallbackRow, SavedView};

use super::action::Action;
use super::context::Context;
use super::field::TextField;
use super::tab::Tab;
use super::theme::Theme;
use counts::{Count, ReconcileSummary};
use detail::Detail;
use form::Form;
pub use lists::{List, ListId, Lists, TabPage, TabRow};
use marks::Marks;
use page::{CallbackItem, Page};

/// A message in the line above the footer: until the next key, or (a passing one)
/// for a few seconds whatever keys come, then it goes by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// What to say.
    pub text: String,
    /// Something was not done (drawn as a warning).
    pub error: bool,
    /// A passing message stays until then, keys or not; `None`: until the next key.
    pub until: Option<std::time::Instant>,
}

impl Flash {
    /// A message that something went as asked, ready to put in [`Model::flash`].
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn info(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: false,
            until: None,
        })
    }

    /// A message that something was written, shown for `lasts` while the reviewer
    /// goes on to the next row: it needs no key to close, and the next key does not
    /// take it away before it could be read.
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn passing(text: impl Into<String>, lasts: std::time::Duration) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: false,
            until: Some(std::time::Instant::now() + lasts),
        })
    }

    /// Has its time passed (a passing message), at `now`?
    pub fn gone_at(&self, now: std::time::Instant) -> bool {
        self.until.is_some_and(|until| now >= until)
    }

    /// A message that something was not done, and why.
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn error(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: true,
            until: None,
        })
    }
}

/// What has the keyboard above the lists and the detail pane: at most one at a time.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Overlay {
    /// Nothing: the list (or the detail pane, when open) has the keyboard.
    #[default]
    None,
    /// Typing the current view's filter; Esc puts `before` back.
    Filter {
        /// The filter to restore on Esc.
        before: Option<String>,
        /// The filter as typed, with its cursor (each change is the view's filter at once).
        field: TextField,
    },
    /// A form over the view.
    Form(Box<Form>),
    /// The comparison pane of a held callback.
    Compare(Box<compare::ComparePane>),
    /// The help screen, scrolled down `scroll` lines.
    Help {
        /// Lines scrolled off the top.
        scroll: usize,
    },
    /// Typing a command after `:` (`save NAME`).
    Command {
        /// The command as typed so far.
        text: TextField,
    },
    /// A change to a saved view that takes another away, asked before it is written.
    ConfirmView(Box<ViewChange>),
    /// The saved views, to recall one.
    SavedViews {
        /// Each name's latest view, in order of name.
        views: Vec<SavedView>,
        /// The view Enter recalls.
        selected: usize,
    },
}

/// A change to the saved views that the reviewer is asked to confirm (y or n).
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // held boxed, in `Overlay::ConfirmView`
pub enum ViewChange {
    /// Saving `view` under a name that has `standing` already.
    Replace {
        view: SavedView,
        standing: SavedView,
    },
    /// Deleting the `selected` one of the saved views listed (the list comes back after).
    Delete {
        views: Vec<SavedView>,
        selected: usize,
    },
}

/// Everything a frame is drawn from.
pub struct Model {
    /// The view shown.
    pub tab: Tab,
    /// One page of rows per list view.
    pub lists: Lists,
    /// Lines of the Reconcile view scrolled off the top.
    pub reconcile_scroll: usize,
    /// The Reconcile view's selected finding, and the jobs behind it once opened.
    pub findings: findings::Findings,
    /// The reconciliation at a glance.
    pub summary: ReconcileSummary,
    /// The detail pane below the list, open when `Some`; it has the keyboard while no
    /// overlay is open.
    pub detail: Option<Detail>,
    /// The filter being typed, a form, or the help.
    pub overlay: Overlay,
    /// The message above the footer.
    pub flash: Option<Flash>,
    /// Text the terminal is to put on its clipboard (OSC 52): the update step asks,
    /// the terminal loop writes it and takes it away, so drawing stays read-only.
    pub clipboard: Option<String>,
    /// The terminal's width and height.
    pub size: (u16, u16),
    /// The ledger's path, as the status line shows it.
    pub ledger_path: String,
    /// The ledger in a few characters, for a status line short of room.
    pub ledger_name: String,
    /// Who answers, as written into the ledger.
    pub reviewer: String,
    /// Fixed or the system's (the status line says which).
    pub clock: Clock,
    /// The time the counts and ages were taken at.
    pub now: Timestamp,
    /// The console was opened read-only (`review --read-only`).
    pub read_only: bool,
    /// The ledger file is gone from its path (removed, or replaced by a file that
    /// does not open): what was read stays, writes are off until it is back.
    pub ledger_gone: bool,
    /// The ledger's server cannot be reached (it restarted, the network dropped):
    /// what was read stays, writes are off, and the console connects again by itself.
    pub server_away: bool,
    /// The callbacks marked in each view, by number, for a bulk answer.
    pub callback_marks: Marks<i64>,
    /// The aged jobs marked in each view, by id, for a bulk owner assignment.
    pub job_marks: Marks<String>,
    /// The list whose filter is being searched on another thread (a large view's, or
    /// a large finding's jobs): until its rows come, those shown are the previous
    /// filter's, and the screen says so.
    pub searching: Option<ListId>,
    /// What the selected held callback's job's other callbacks report beside it, read
    /// when the selection comes to it (shown in the preview and the answer form).
    pub beside: Option<compare::Beside>,
    /// The reviewer's last look at each list that keeps one (Held, Quarantined,
    /// Aged), when they looked before: what is newer is marked new.
    pub looks: std::collections::HashMap<Tab, crate::store::LookRow>,
    /// How many rows of each such list are new since that look.
    pub new_counts: std::collections::HashMap<Tab, i64>,
    /// How colours are shown: a dark palette, a light one, or none.
    pub theme: Theme,
    /// The walkthrough of the demo's afternoon: its step, and whether it runs.
    pub tour: tour::Tour,
}

impl Model {
    /// Nothing can be written now: opened read-only, or the file is gone from its path.
    pub fn writes_off(&self) -> bool {
        self.read_only || self.ledger_gone || self.server_away
    }

    /// A model with nothing read yet, on a 160×48 screen.
    pub fn new(
        ledger_path: String,
        clock: Clock,
        now: Timestamp,
        reviewer: String,
        read_only: bool,
    ) -> Model {
        Model {
            tab: Tab::Held,
            lists: Lists::new(),
            reconcile_scroll: 0,
            findings: findings::Findings::default(),
            summary: ReconcileSummary::default(),
            detail: None,
            overlay: Overlay::None,
            flash: None,
            clipboard: None,
            size: (160, 48),
            ledger_name: crate::store::Location::parse(std::ffi::OsStr::new(&ledger_path))
                .map_or_else(|_| ledger_path.clone(), |at| at.short_name()),
            ledger_path,
            reviewer,
            clock,
            now,
            read_only,
            ledger_gone: false,
            server_away: false,
            callback_marks: Marks::default(),
            job_marks: Marks::default(),
            searching: None,
            beside: None,
            looks: std::collections::HashMap::new(),
            new_counts: std::collections::HashMap::new(),
            theme: Theme::default(),
            tour: tour::Tour::default(),
        }
    }

    /// Where the keyboard is.
    pub fn context(&self) -> Context {
        match &self.overlay {
            Overlay::Help { .. } => Context::Help,
            // The tour steps through the console: it has the keyboard over whatever
            // its step opened (the comparison, a finding's jobs), the help aside.
            _ if self.tour.shown => Context::Tour,
            _ => self.context_beneath_tour(),
        }
    }

    /// Where the keyboard would be without the tour: what its scrolling keys move.
    pub fn context_beneath_tour(&self) -> Context {
        match &self.overlay {
            Overlay::Help { .. } => Context::Help,
            Overlay::Compare(_) => Context::Compare,
            Overlay::Form(form) if form.outcome().is_some() => Context::Outcome,
            Overlay::Form(form) if matches!(&**form, Form::Request(f) if f.would_be_refused()) => {
                Context::Refused
            }
            Overlay::Form(form) if matches!(**form, Form::Request(_)) => Context::Confirm,
            Overlay::Form(form) if matches!(**form, Form::Withdraw(_)) => Context::Withdraw,
            Overlay::Form(form) if matches!(&**form, Form::Bulk(f) if f.plan().is_some()) => {
                Context::Plan
            }
            Overlay::Form(form) if matches!(**form, Form::Bulk(_)) => Context::Bulk,
            Overlay::Form(form) if matches!(&**form, Form::BulkOwner(f) if f.plan().is_some()) => {
                Context::OwnerPlan
            }
            Overlay::Form(form) if matches!(**form, Form::BulkOwner(_)) => Context::BulkOwner,
            Overlay::Form(form) if matches!(**form, Form::Owner(_)) => Context::Owner,
            Overlay::Form(_) => Context::Form,
            Overlay::Filter { .. } => Context::Filter,
            Overlay::Command { .. } => Context::Command,
            Overlay::SavedViews { .. } => Context::SavedViews,
            Overlay::ConfirmView(_) => Context::ConfirmView,
            Overlay::None if self.detail.is_some() => Context::Detail,
            Overlay::None => Context::List,
        }
    }

    /// The current view's page, if it lists rows (the Reconcile view: the jobs of an
    /// opened finding).
    pub fn list(&self) -> Option<&dyn List> {
        self.list_of(self.list_id())
    }

    /// Which list the current view shows: its tab's, or in the Reconcile view the
    /// jobs of the opened finding.
    pub fn list_id(&self) -> ListId {
        let finding_jobs = self
            .finding_jobs_id()
            .filter(|_| self.tab == Tab::Reconcile);
        finding_jobs.unwrap_or(ListId::Tab(self.tab))
    }

    /// Which list the jobs of the finding opened are, while one is.
    pub fn finding_jobs_id(&self) -> Option<ListId> {
        self.findings.jobs.as_ref().map(|jobs| ListId::FindingJobs {
            finding: jobs.source,
            opened: self.findings.opened,
        })
    }

    /// The page of list `id`, while it is there (a finding's jobs: while that opening
    /// of it lasts).
    pub fn list_of(&self, id: ListId) -> Option<&dyn List> {
        match id {
            ListId::Tab(tab) => self.lists.of(tab),
            ListId::FindingJobs { .. } => self
                .findings
                .jobs
                .as_ref()
                .filter(|_| self.finding_jobs_are(id))
                .map(|jobs| jobs as &dyn List),
        }
    }

    /// [`Model::list_of`], to change.
    pub fn list_of_mut(&mut self, id: ListId) -> Option<&mut dyn List> {
        match id {
            ListId::Tab(tab) => self.lists.of_mut(tab),
            ListId::FindingJobs { .. } if self.finding_jobs_are(id) => self
                .findings
                .jobs
                .as_mut()
                .map(|jobs| jobs as &mut dyn List),
            ListId::FindingJobs { .. } => None,
        }
    }

    /// A copy of list `id`'s page, typed by its rows: what a search reads.
    pub fn page_of(&self, id: ListId) -> Option<TabPage> {
        match id {
            ListId::Tab(tab) => self.lists.tab_page(tab).cloned(),
            ListId::FindingJobs { .. } => self
                .findings
                .jobs
                .clone()
                .filter(|_| self.finding_jobs_are(id))
                .map(TabPage::FindingJobs),
        }
    }

    /// Puts `page` in place of list `id`'s (a search ended), if that list is still
    /// there and `page` is of its rows.
    pub fn put_page(&mut self, id: ListId, page: TabPage) {
        match (id, page) {
            (ListId::Tab(tab), page) => self.lists.put(tab, page),
            (ListId::FindingJobs { .. }, TabPage::FindingJobs(page))
                if self.finding_jobs_are(id) =>
            {
                self.findings.jobs = Some(page);
            }
            _ => {}
        }
    }

    /// Is `id` the jobs of the finding open now, in this opening of it?
    fn finding_jobs_are(&self, id: ListId) -> bool {
        match (id, &self.findings.jobs) {
            (ListId::FindingJobs { finding, opened }, Some(jobs)) => {
                jobs.source == finding && opened == self.findings.opened
            }
            _ => false,
        }
    }

    /// The selected callback: the list's, or the open detail's.
    pub fn selected_callback(&self) -> Option<&CallbackRow> {
        self.list()
            .and_then(|l| l.callback())
            .or_else(|| self.detail.as_ref().and_then(|d| d.callback.as_ref()))
    }

    /// Is the row (a callback or an aged job) of the view shown new since the
    /// reviewer's last look at it?
    pub fn is_new(
        &self,
        callback: Option<&CallbackRow>,
        aged: Option<&crate::store::AgedJobRow>,
    ) -> bool {
        use crate::review::looks;
        let Some(look) = self.looks.get(&self.tab) else {
            return false;
        };
        match (callback, aged) {
            (Some(row), _) => looks::callback_is_new(row, look, &self.reviewer),
            (_, Some(row)) => looks::aged_is_new(row, look, self.now),
            _ => false,
        }
    }

    /// The reading beside callback `seq`, when it is the one read.
    pub fn beside(&self, seq: i64) -> Option<&str> {
        self.beside
            .as_ref()
            .filter(|b| b.seq == seq)
            .map(|b| b.reading.as_str())
    }

    /// The current view's page, to change.
    pub fn list_mut(&mut self) -> Option<&mut dyn List> {
        self.list_of_mut(self.list_id())
    }

    /// The Reconcile view shows its findings (no finding opened): Enter opens one.
    pub fn on_findings(&self) -> bool {
        self.tab == Tab::Reconcile && self.findings.jobs.is_none()
    }

    /// The count the tab of `tab` shows: its rows (and those matching its filter),
    /// or for the Reconcile view the jobs not accounted for.
    pub fn count(&self, tab: Tab) -> Count {
        self.lists.of(tab).map_or(
            Count {
                all: self.summary.missing.missing_terminal + self.summary.missing.missing_output,
                ..Count::default()
            },
            List::count,
        )
    }

    /// The current view's filter.
    pub fn filter(&self) -> Option<&str> {
        self.list().and_then(List::filter)
    }

    /// Is the current view's filter being searched, its rows still the previous one's?
    pub fn searching_shown(&self) -> bool {
        self.searching == Some(self.list_id()) && self.list().is_some_and(|l| l.invalid().is_none())
    }

    /// Are the current view's rows those of its filter, with their count still being
    /// made (a large view shows its first rows before it counts a million)?
    pub fn counting_shown(&self) -> bool {
        !self.searching_shown()
            && self
                .list()
                .is_some_and(|l| l.count().counting && l.invalid().is_none())
    }

    /// Why the current view's filter as typed is not a query yet, if it is not.
    pub fn invalid_filter(&self) -> Option<&FilterError> {
        self.list().and_then(List::invalid)
    }

    /// The open form, if any.
    pub fn form(&self) -> Option<&Form> {
        match &self.overlay {
            Overlay::Form(form) => Some(form),
            _ => None,
        }
    }

    /// The selected callback and its kind of question, or why it takes no answer.
    pub(crate) fn answerable(&self) -> Result<(&CallbackRow, CaseKind), &'static str> {
        let row = self
            .list()
            .and_then(List::callback)
            .ok_or("answers are given on held or quarantined callbacks (views 1 and 2)")?;
        CaseKind::of(row.disposition, row.reason)
            .map(|kind| (row, kind))
            .ok_or("this callback was applied or recorded; only held and quarantined ones take answers")
    }

    /// The job selected in the Reconcile view's list of divergent decisions, when
    /// that list is open (`a` answers it).
    pub fn divergent_job(&self) -> Option<&str> {
        self.findings
            .jobs
            .as_ref()
            .filter(|page| {
                self.tab == Tab::Reconcile
                    && page.source == crate::store::Finding::DivergentDecisions
            })
            .and_then(Page::current)
            .map(|row| row.job_id.as_str())
    }

    /// The selected row is a pending request in the Outbox view.
    fn withdrawable(&self) -> bool {
        self.tab == Tab::Outbox
            && self
                .lists
                .page::<crate::store::OutboxRow>(Tab::Outbox)
                .and_then(Page::current)
                .is_some_and(|row| row.withdrawal.is_none())
    }

    /// The selected row (or the detail pane's callback) is a held callback.
    fn held_selected(&self) -> bool {
        self.list()
            .and_then(List::callback)
            .or_else(|| self.detail.as_ref().and_then(|d| d.callback.as_ref()))
            .is_some_and(|c| c.disposition == crate::decision::Disposition::Hold)
    }

    /// Does the current view list callbacks (which can be marked and answered at once)?
    pub fn lists_callbacks(&self) -> bool {
        self.lists.page::<CallbackItem>(self.tab).is_some()
    }

    /// Does the current view list aged jobs (which can be marked and given an owner at
    /// once)?
    pub fn lists_aged_jobs(&self) -> bool {
        self.lists.page::<AgedJobRow>(self.tab).is_some()
    }

    /// How many rows are marked in the current view (callbacks or aged jobs: a view
    /// lists one kind).
    pub fn marked(&self) -> usize {
        self.callback_marks.count(self.tab) + self.job_marks.count(self.tab)
    }

    /// Does `action` apply here and now? (Footer hints show only those that do.)
    pub fn offers(&self, action: Action) -> bool {
        let job = self.list().and_then(List::job);
        let marked = self.marked() > 0;
        match action {
            Action::Answer if marked => !self.writes_off() && self.lists_callbacks(),
            Action::Answer => {
                !self.writes_off() && (self.answerable().is_ok() || self.divergent_job().is_some())
            }
            Action::Mark | Action::MarkAll => self.lists_callbacks() || self.lists_aged_jobs(),
            Action::ClearMarks => marked,
            Action::Owner if marked => !self.writes_off() && self.lists_aged_jobs(),
            Action::Owner => !self.writes_off() && self.list().and_then(List::aged).is_some(),
            Action::Retry | Action::Cancel => !self.writes_off() && job.is_some(),
            Action::OpenDetail if self.on_findings() => true,
            Action::OpenDetail => self.list().and_then(List::detail_key).is_some(),
            Action::Filter => self.list().is_some(),
            // Enter keeps only a query: not offered while the text typed is none.
            Action::Submit if matches!(self.overlay, Overlay::Filter { .. }) => {
                self.invalid_filter().is_none()
            }
            Action::ToggleOpen => self.list().is_some_and(|l| l.count().open.is_some()),
            Action::Withdraw => !self.writes_off() && self.withdrawable(),
            Action::Compare => self.held_selected(),
            Action::Claim => {
                !self.writes_off()
                    && self
                        .selected_callback()
                        .is_some_and(|c| c.disposition.waits_for_a_person())
            }
            Action::Export => {
                self.selected_callback().is_some() || self.list().and_then(|l| l.job()).is_some()
            }
            // Offered where there is more than one order to cycle through.
            Action::SortNext => self.list().is_some_and(|l| l.sorts().len() > 1),
            _ => true,
        }
    }
}
