//! What a ledger's copy moves, whatever the engines at either end: each table of
//! record with its columns (the SQLite ledger's, which the PostgreSQL ledger has
//! too), and each value as a plain cell.
//!
//! Not copied: what each ledger keeps of itself (its schema version, its file's
//! identity, its commit counter), made anew by the destination; nor what is computed
//! from a row (the line identity's time key).
//!
//! The role that wrote a person's row (`written_by`) is copied as it is into a file,
//! which keeps who wrote each row on the server it came from. A server sets it itself
//! on every row written into it (a trigger, whatever the client sends): a copy into
//! PostgreSQL records the role that copied the rows, the one that wrote them into
//! that ledger.

/// One value of one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

/// The kind of values a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Text,
    Blob,
}

/// A table of record, as copied.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Kind)],
    /// The columns its rows are read in the order of (its key).
    pub order: &'static str,
}

impl Table {
    /// The column names, comma-separated, for a statement.
    pub fn column_list(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(name, _)| *name).collect();
        names.join(", ")
    }

    /// Whether the destination's fresh ledger already has rows of this table (the
    /// kept counts start at zero rows, notes may be set): those are overwritten by
    /// the source's, not added.
    pub fn is_kept_state(&self) -> bool {
        matches!(self.name, "ledger_counts" | "ledger_notes")
    }

    /// What ends an insert of this table's rows: for kept state, the source's row
    /// replaces the destination's (an upsert both engines read alike); else nothing.
    pub fn on_conflict(&self) -> String {
        if !self.is_kept_state() {
            return String::new();
        }
        let updates: Vec<String> = self
            .columns
            .iter()
            .filter(|(name, _)| *name != self.order)
            .map(|(name, _)| format!("{name} = excluded.{name}"))
            .collect();
        format!(
            " ON CONFLICT ({}) DO UPDATE SET {}",
            self.order,
            updates.join(", ")
        )
    }
}

/// Every table a copy moves, in an order in which each row's references come first.
pub const TABLES: &[Table] = &[
    Table {
        name: "input_lines",
        columns: &[
            ("seq", Kind::Int),
            ("line_sha256", Kind::Blob),
            ("raw", Kind::Blob),
            ("event", Kind::Text),
            ("status", Kind::Text),
            ("reason", Kind::Text),
            ("ingested_at", Kind::Text),
            ("whole_length", Kind::Int),
        ],
        order: "seq",
    },
    Table {
        name: "jobs",
        columns: &[
            ("job_id", Kind::Text),
            ("state", Kind::Text),
            ("accepted_at", Kind::Text),
            ("aged_at", Kind::Text),
            ("timeout_s", Kind::Int),
            ("expected_age_s", Kind::Int),
            ("attempt_budget", Kind::Int),
            ("latest_attempt", Kind::Int),
            ("input_digest", Kind::Text),
            ("model_digest", Kind::Text),
            ("policy_revision", Kind::Text),
            ("result_ref", Kind::Text),
            ("failure_cause", Kind::Text),
            ("failure_permanent", Kind::Int),
            ("state_changed_at", Kind::Text),
            ("accepted_line", Kind::Int),
        ],
        order: "job_id",
    },
    Table {
        name: "attempts",
        columns: &[
            ("job_id", Kind::Text),
            ("attempt", Kind::Int),
            ("created_by", Kind::Text),
            ("started_at", Kind::Text),
            ("timeout_at", Kind::Text),
            ("state", Kind::Text),
            ("timed_out_at", Kind::Text),
        ],
        order: "job_id, attempt",
    },
    Table {
        name: "job_history",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("at", Kind::Text),
            ("from_state", Kind::Text),
            ("to_state", Kind::Text),
            ("applied", Kind::Int),
            ("cause", Kind::Text),
            ("line_seq", Kind::Int),
            ("callback_seq", Kind::Int),
        ],
        order: "id",
    },
    Table {
        name: "callbacks",
        columns: &[
            ("seq", Kind::Int),
            ("line_seq", Kind::Int),
            ("delivery_id", Kind::Text),
            ("job_id", Kind::Text),
            ("attempt", Kind::Int),
            ("outcome", Kind::Text),
            ("arrived_at", Kind::Text),
            ("timeout_at", Kind::Text),
            ("disposition", Kind::Text),
            ("reason", Kind::Text),
            ("detail", Kind::Text),
            ("job_state_before", Kind::Text),
            ("replacement_attempt", Kind::Int),
            ("first_report_seq", Kind::Int),
            ("linked_from_seq", Kind::Int),
            ("judged_at", Kind::Text),
            ("replacement_created_by", Kind::Text),
            ("replacement_started_at", Kind::Text),
        ],
        order: "seq",
    },
    Table {
        name: "answers",
        columns: &[
            ("id", Kind::Int),
            ("callback_seq", Kind::Int),
            ("verdict", Kind::Text),
            ("note", Kind::Text),
            ("reviewer", Kind::Text),
            ("answered_at", Kind::Text),
            ("linked_job_id", Kind::Text),
            ("previous_answer", Kind::Int),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "decision_answers",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("verdict", Kind::Text),
            ("note", Kind::Text),
            ("reviewer", Kind::Text),
            ("answered_at", Kind::Text),
            ("previous_answer", Kind::Int),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "decisions",
        columns: &[
            ("id", Kind::Int),
            ("decision_id", Kind::Text),
            ("job_id", Kind::Text),
            ("action", Kind::Text),
            ("at", Kind::Text),
            ("suppressed", Kind::Int),
            ("line_seq", Kind::Int),
            ("route", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "notifications",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("kind", Kind::Text),
            ("sent_at", Kind::Text),
            ("line_seq", Kind::Int),
        ],
        order: "id",
    },
    Table {
        name: "outbox",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("request", Kind::Text),
            ("attempt", Kind::Int),
            ("input_digest", Kind::Text),
            ("model_digest", Kind::Text),
            ("policy_revision", Kind::Text),
            ("requested_by", Kind::Text),
            ("requested_at", Kind::Text),
            ("status", Kind::Text),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "output_checks",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("checked_at", Kind::Text),
            ("object_exists", Kind::Int),
            ("line_seq", Kind::Int),
        ],
        order: "id",
    },
    Table {
        name: "outputs",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("ref", Kind::Text),
            ("stored_at", Kind::Text),
            ("retention_until", Kind::Text),
            ("line_seq", Kind::Int),
        ],
        order: "id",
    },
    Table {
        name: "owner_assignments",
        columns: &[
            ("id", Kind::Int),
            ("job_id", Kind::Text),
            ("owner", Kind::Text),
            ("escalate_at", Kind::Text),
            ("set_by", Kind::Text),
            ("set_at", Kind::Text),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "repeated_submissions",
        columns: &[
            ("job_id", Kind::Text),
            ("line_seq", Kind::Int),
            ("submitted_at", Kind::Text),
            ("input_digest", Kind::Text),
            ("model_digest", Kind::Text),
            ("policy_revision", Kind::Text),
            ("conflicting", Kind::Int),
        ],
        order: "job_id, line_seq",
    },
    Table {
        name: "request_withdrawals",
        columns: &[
            ("id", Kind::Int),
            ("request_id", Kind::Int),
            ("withdrawn_by", Kind::Text),
            ("withdrawn_at", Kind::Text),
            ("note", Kind::Text),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "saved_views",
        columns: &[
            ("id", Kind::Int),
            ("name", Kind::Text),
            ("tab", Kind::Text),
            ("query", Kind::Text),
            ("saved_by", Kind::Text),
            ("saved_at", Kind::Text),
            ("deleted", Kind::Int),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "claims",
        columns: &[
            ("id", Kind::Int),
            ("callback_seq", Kind::Int),
            ("action", Kind::Text),
            ("reviewer", Kind::Text),
            ("at", Kind::Text),
            ("until", Kind::Text),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "looks",
        columns: &[
            ("id", Kind::Int),
            ("reviewer", Kind::Text),
            ("list", Kind::Text),
            ("looked_at", Kind::Text),
            ("callback_seq", Kind::Int),
            ("answer_id", Kind::Int),
            ("written_by", Kind::Text),
        ],
        order: "id",
    },
    Table {
        name: "ledger_counts",
        columns: &[("name", Kind::Text), ("n", Kind::Int)],
        order: "name",
    },
    Table {
        name: "ledger_notes",
        columns: &[("key", Kind::Text), ("value", Kind::Text)],
        order: "key",
    },
];
