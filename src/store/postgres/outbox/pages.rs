//! Pages of the outbox on PostgreSQL, under a query: the SQLite engine's
//! `outbox_page` and `outbox_count_matching`.

use crate::clock::Timestamp;
use crate::filter::{Field, Query};
use crate::store::postgres::Ledger;
use crate::store::postgres::columns::{OUTBOX_COLUMNS, OUTBOX_TABLE, outbox_from};
use crate::store::postgres::filter::{Column, Columns, Params, condition};
use crate::store::postgres::query::Select;
use crate::store::{OutboxRow, PageRequest, StoreError};

/// The query fields of the outbox, on [`OUTBOX_TABLE`]: a bare word is looked for in
/// the job id, the request, its status (withdrawn when it was) and who asked.
const REQUEST_FIELDS: Columns = Columns {
    field: request_field,
    words: &[
        "o.job_id",
        "o.request",
        "(CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END)",
        "o.requested_by",
    ],
    text_index: None,
};

fn request_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("o.job_id")),
        Field::By => Some(Column::Text("o.requested_by")),
        Field::Age => Some(Column::AgeOf("o.requested_at")),
        _ => None,
    }
}

impl Ledger {
    /// One page of the outbox in the order the requests were made, kept when `query`
    /// keeps them (ages at `now`).
    pub fn outbox_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let mut params = Params::new();
        let query = condition(query, &REQUEST_FIELDS, Some(now), &mut params);
        let select = Select::new(OUTBOX_COLUMNS, OUTBOX_TABLE);
        self.seq_page(select, "o.id", query, params, page, outbox_from)
    }

    /// Requests in the outbox that `query` keeps (ages at `now`).
    pub fn outbox_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64, StoreError> {
        let mut params = Params::new();
        let query = condition(query, &REQUEST_FIELDS, Some(now), &mut params);
        self.count_matching(Select::new("count(*)", OUTBOX_TABLE), query, &params)
    }
}
