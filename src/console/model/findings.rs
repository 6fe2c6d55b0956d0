//! The Reconcile view's findings as a list to open: which finding is selected, and,
//! once opened (Enter), the page of the jobs behind it, read by keyset like every
//! other list (Enter on a job opens its timeline; Esc goes back to the findings).

use crate::filter::Scope;
use crate::store::{Finding, FindingJob, PageRequest, StoreError};

use super::counts::Count;
use super::detail::DetailKey;
use super::page::{Page, PageRow, Query, RowSource, RowsRead};

/// The findings of the Reconcile view and the drill-down into one of them.
pub struct Findings {
    /// The finding Enter opens.
    pub selected: Finding,
    /// The jobs of the opened finding (`None`: the findings are shown).
    pub jobs: Option<Page<FindingJob>>,
    /// How many times a finding was opened: which opening `jobs` is, so that a search
    /// of an earlier one is told from it (`ListId::FindingJobs`).
    pub opened: u64,
}

impl Default for Findings {
    /// The first finding selected, none opened.
    fn default() -> Self {
        Findings {
            selected: Finding::ALL[0],
            jobs: None,
            opened: 0,
        }
    }
}

impl Findings {
    /// Selects the next (`forward`) or previous finding; `false` at either end.
    pub fn select(&mut self, forward: bool) -> bool {
        let at = Finding::ALL
            .iter()
            .position(|f| *f == self.selected)
            .unwrap_or(0);
        let next = if forward {
            at.checked_add(1)
        } else {
            at.checked_sub(1)
        };
        match next.and_then(|i| Finding::ALL.get(i)) {
            Some(&finding) => {
                self.selected = finding;
                true
            }
            None => false,
        }
    }

    /// Lists the jobs of the selected finding (read on the next reload).
    pub fn open(&mut self) {
        self.jobs = Some(Page::new(self.selected));
        self.opened += 1;
    }
}

impl Finding {
    /// How the Reconcile view names the finding.
    pub fn label(self) -> &'static str {
        match self {
            Finding::MissingTerminal => "missing terminal record",
            Finding::MissingOutput => "missing output object",
            Finding::MissingNotification => "missing notification",
            Finding::DivergentDecisions => "divergent decisions",
            Finding::ConflictingSubmissions => "conflicting submissions",
        }
    }
}

impl PageRow for FindingJob {
    type Key = String;
    type Source = Finding;
    const SCOPE: Scope = Scope::FindingJobs;

    fn key(&self) -> String {
        self.job_id.clone()
    }

    /// The job: Enter opens its timeline.
    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Job(self.job_id.clone()))
    }

    fn job(&self) -> Option<&str> {
        Some(&self.job_id)
    }

    fn count(rows: &dyn RowSource, query: Query<'_, Finding>) -> Result<Count, StoreError> {
        rows.count_finding_jobs(query)
    }

    fn fetch(
        rows: &dyn RowSource,
        query: Query<'_, Finding>,
        page: PageRequest<String>,
    ) -> RowsRead<Self> {
        rows.finding_jobs(query, page)
    }
}
