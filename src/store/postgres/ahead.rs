//! What an ingest is about to write, read at once; and the rows it writes for it, kept
//! to be written together.
//!
//! Line by line, an ingest on a server waited for the server several times a line: is
//! the line kept already, the job, its attempt, what earlier callbacks claimed, then
//! each insert. Told some hundreds of lines ahead ([`Writer::look_ahead`]), the writer
//! reads in one statement which of them the ledger holds, in three more the jobs they
//! name (locked, as any first read of a job is), their attempts and what their
//! callbacks claimed; its new lines and callbacks are numbered on from the highest kept
//! (see `take_turn`). The rows are then written in one statement a table
//! ([`Ahead::flush`]), before any other statement of the transaction runs and at commit.
//!
//! Ingests take turns (`take_turn`), so no other ingest keeps a line or accepts a job
//! between the look and the write. Should a row with the same identity be there all the
//! same, the insert meets the unique identity and the transaction is refused as busy,
//! nothing of it kept: the ingest does it again, and then finds that row.

use std::collections::{HashMap, HashSet};

use super::Writer;
use super::text_index::CallbackText;
use super::writer::{opt_time_text, time_text};
use crate::closed_set::ClosedSet;
use crate::decision::{JobState, Outcome};
use crate::store::{LineAhead, NewCallback, NewLine, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// A line's identity as the ledger's unique key has it: a function of its bytes (see
/// the migration: the 16 bytes after its first `"at":"`) and its SHA-256.
pub(super) fn time_key(raw: &[u8]) -> Option<Vec<u8>> {
    if raw.is_empty() {
        return None;
    }
    // PostgreSQL's position() counts from 1, and gives 0 when it finds nothing.
    let found = raw
        .windows(6)
        .position(|w| w == b"\"at\":\"")
        .map_or(0, |i| i + 1);
    let from = (found + 6 - 1).min(raw.len());
    let to = (from + 16).min(raw.len());
    Some(raw[from..to].to_vec())
}

/// A line to be inserted.
#[derive(Debug)]
struct LineRow {
    seq: i64,
    sha256: [u8; 32],
    raw: Vec<u8>,
    event: Option<String>,
    status: &'static str,
    reason: Option<String>,
    ingested_at: String,
    whole_length: Option<i64>,
}

/// A job accepted by this transaction, to be inserted (its changes since are kept
/// with the other jobs', in `WriteBehind`, and written after it).
#[derive(Debug)]
pub(super) struct JobInsert {
    pub job_id: String,
    pub accepted_at: String,
    pub aged_at: String,
    pub timeout_s: Option<i64>,
    pub expected_age_s: i64,
    pub attempt_budget: i64,
    pub input_digest: Option<String>,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub accepted_line: i64,
}

/// A fact downstream of a job, to be inserted in its table.
#[derive(Debug)]
pub(super) enum DownstreamRow {
    Output {
        job_id: String,
        reference: String,
        stored_at: String,
        retention_until: Option<String>,
        line_seq: i64,
    },
    Check {
        job_id: String,
        checked_at: String,
        exists: i16,
        line_seq: i64,
    },
    Notification {
        job_id: String,
        kind: String,
        sent_at: String,
        line_seq: i64,
    },
}

/// One callback to be inserted, its columns as the ledger writes them.
#[derive(Debug)]
struct CallbackInsert {
    seq: i64,
    line_seq: i64,
    delivery_id: Option<String>,
    job_id: Option<String>,
    attempt: Option<i64>,
    outcome: Option<&'static str>,
    arrived_at: Option<String>,
    timeout_at: Option<String>,
    disposition: &'static str,
    reason: &'static str,
    detail: Option<String>,
    job_state_before: Option<&'static str>,
    replacement_attempt: Option<i64>,
    first_report_seq: Option<i64>,
    linked_from_seq: Option<i64>,
    judged_at: String,
    replacement_created_by: Option<String>,
    replacement_started_at: Option<String>,
}

/// The callbacks of one job's attempt that claimed an outcome: their sequence numbers
/// and outcomes.
type Claims = Vec<(i64, Option<&'static str>)>;

/// What became of a line given to [`Writer::keep_told_line`].
pub(super) enum Told {
    /// It was not told ahead: the ledger must be asked.
    No,
    /// Kept before (in the ledger, or earlier in this transaction).
    KeptBefore,
    /// New, kept with this number.
    Kept(i64),
}

/// What a writer was told ahead and what it keeps to write.
#[derive(Debug, Default)]
pub(super) struct Ahead {
    /// This transaction holds the ledger's ingest turn.
    turn: bool,
    /// This transaction (a person's write) keeps ingests out until it ends.
    ingests_held_off: bool,
    /// The lines told ahead (by SHA-256, and whether whole): whether the ledger held
    /// each when looked for.
    told: HashMap<([u8; 32], bool), bool>,
    /// Identities of the lines this transaction keeps.
    mine: HashSet<(Option<Vec<u8>>, [u8; 32])>,
    /// Of those, the lines kept as their first bytes (by the whole line's SHA-256).
    mine_oversized: HashSet<[u8; 32]>,
    /// The numbers the next line and callback kept get (while `turn` is held).
    next_line: i64,
    next_callback: i64,
    lines: Vec<LineRow>,
    /// Jobs looked for and not found: none until this transaction accepts one.
    absent: HashSet<String>,
    /// Jobs whose attempts were all read (an attempt not remembered is not there).
    attempts_read: HashSet<String>,
    /// Jobs whose callbacks' claims were all read, with them: by (job, attempt), the
    /// sequence number and outcome of each callback not quarantined.
    claims_read: HashSet<String>,
    claims: HashMap<(String, i64), Claims>,
    jobs: Vec<JobInsert>,
    callbacks: Vec<CallbackInsert>,
    downstream: Vec<DownstreamRow>,
}

impl Ahead {
    pub fn is_clean(&self) -> bool {
        self.lines.is_empty()
            && self.jobs.is_empty()
            && self.callbacks.is_empty()
            && self.downstream.is_empty()
    }

    /// Forgets what was read of jobs (their rows are forgotten too, to be read again).
    pub fn forget_jobs(&mut self) {
        self.absent.clear();
        self.attempts_read.clear();
        self.claims_read.clear();
        self.claims.clear();
    }

    pub fn job_is_absent(&self, job_id: &str) -> bool {
        self.absent.contains(job_id)
    }

    pub fn attempts_were_read(&self, job_id: &str) -> bool {
        self.attempts_read.contains(job_id)
    }

    /// Is this line one this transaction keeps already?
    fn is_mine(&self, line: &LineAhead<'_>) -> bool {
        let key = (time_key(line.raw), *line.sha256);
        if self.mine.contains(&key) {
            return true;
        }
        if let Some(with_cr) = line.sha256_with_cr {
            let mut raw = line.raw.to_vec();
            raw.push(b'\r');
            let key = (time_key(&raw), *with_cr);
            if self.mine.contains(&key) {
                return true;
            }
        }
        line.whole && self.mine_oversized.contains(line.sha256)
    }

    /// The claims of earlier callbacks on a job's attempt, when they were read.
    pub fn claims(&self, job_id: &str, attempt: i64) -> Option<&[(i64, Option<&'static str>)]> {
        if !self.claims_read.contains(job_id) {
            return None;
        }
        Some(
            self.claims
                .get(&(job_id.to_owned(), attempt))
                .map_or(&[][..], Vec::as_slice),
        )
    }

    pub fn add_job(&mut self, job: JobInsert) {
        self.absent.remove(&job.job_id);
        // A new job has no attempts but those this transaction gives it, and no claims.
        self.attempts_read.insert(job.job_id.clone());
        self.claims_read.insert(job.job_id.clone());
        self.jobs.push(job);
    }

    pub fn add_downstream(&mut self, row: DownstreamRow) {
        self.downstream.push(row);
    }

    /// Writes every row kept here, one statement a table: lines, jobs, callbacks (and
    /// their searchable text), then the facts downstream. A line or job another writer kept meanwhile refuses the
    /// transaction as busy.
    pub fn flush(&mut self, writer: &Writer<'_>) -> Result<()> {
        let lines = std::mem::take(&mut self.lines);
        if !lines.is_empty() {
            let seqs: Vec<i64> = lines.iter().map(|l| l.seq).collect();
            let shas: Vec<&[u8]> = lines.iter().map(|l| &l.sha256[..]).collect();
            let raws: Vec<&[u8]> = lines.iter().map(|l| l.raw.as_slice()).collect();
            let events: Vec<Option<&str>> = lines.iter().map(|l| l.event.as_deref()).collect();
            let statuses: Vec<&str> = lines.iter().map(|l| l.status).collect();
            let reasons: Vec<Option<&str>> = lines.iter().map(|l| l.reason.as_deref()).collect();
            let at: Vec<&str> = lines.iter().map(|l| l.ingested_at.as_str()).collect();
            let whole: Vec<Option<i64>> = lines.iter().map(|l| l.whole_length).collect();
            writer.insert_or_busy(
                "INSERT INTO input_lines (seq, line_sha256, raw, event, status, reason,
                            ingested_at, whole_length)
                     SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::text[],
                                          $5::text[], $6::text[], $7::text[], $8::bigint[])",
                &[
                    &seqs, &shas, &raws, &events, &statuses, &reasons, &at, &whole,
                ],
            )?;
        }
        let jobs = std::mem::take(&mut self.jobs);
        if !jobs.is_empty() {
            let ids: Vec<&str> = jobs.iter().map(|j| j.job_id.as_str()).collect();
            let accepted: Vec<&str> = jobs.iter().map(|j| j.accepted_at.as_str()).collect();
            let aged: Vec<&str> = jobs.iter().map(|j| j.aged_at.as_str()).collect();
            let timeouts: Vec<Option<i64>> = jobs.iter().map(|j| j.timeout_s).collect();
            let ages: Vec<i64> = jobs.iter().map(|j| j.expected_age_s).collect();
            let budgets: Vec<i64> = jobs.iter().map(|j| j.attempt_budget).collect();
            let inputs: Vec<Option<&str>> =
                jobs.iter().map(|j| j.input_digest.as_deref()).collect();
            let models: Vec<Option<&str>> =
                jobs.iter().map(|j| j.model_digest.as_deref()).collect();
            let policies: Vec<Option<&str>> =
                jobs.iter().map(|j| j.policy_revision.as_deref()).collect();
            let lines: Vec<i64> = jobs.iter().map(|j| j.accepted_line).collect();
            writer.insert_or_busy(
                "INSERT INTO jobs (job_id, state, accepted_at, aged_at, timeout_s,
                            expected_age_s, attempt_budget, latest_attempt, input_digest,
                            model_digest, policy_revision, state_changed_at, accepted_line)
                     SELECT job_id, 'accepted', accepted_at, aged_at, timeout_s, expected_age_s,
                            attempt_budget, 1, input_digest, model_digest, policy_revision,
                            accepted_at, accepted_line
                       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[],
                                   $5::bigint[], $6::bigint[], $7::text[], $8::text[],
                                   $9::text[], $10::bigint[])
                            AS j (job_id, accepted_at, aged_at, timeout_s, expected_age_s,
                                  attempt_budget, input_digest, model_digest, policy_revision,
                                  accepted_line)",
                &[
                    &ids, &accepted, &aged, &timeouts, &ages, &budgets, &inputs, &models,
                    &policies, &lines,
                ],
            )?;
        }
        let callbacks = std::mem::take(&mut self.callbacks);
        if !callbacks.is_empty() {
            let col = |f: fn(&CallbackInsert) -> Option<&str>| -> Vec<Option<&str>> {
                callbacks.iter().map(f).collect()
            };
            let seqs: Vec<i64> = callbacks.iter().map(|c| c.seq).collect();
            let line_seqs: Vec<i64> = callbacks.iter().map(|c| c.line_seq).collect();
            let deliveries = col(|c| c.delivery_id.as_deref());
            let job_ids = col(|c| c.job_id.as_deref());
            let attempts: Vec<Option<i64>> = callbacks.iter().map(|c| c.attempt).collect();
            let outcomes = col(|c| c.outcome);
            let arrived = col(|c| c.arrived_at.as_deref());
            let timeouts = col(|c| c.timeout_at.as_deref());
            let dispositions: Vec<&str> = callbacks.iter().map(|c| c.disposition).collect();
            let reasons: Vec<&str> = callbacks.iter().map(|c| c.reason).collect();
            let details = col(|c| c.detail.as_deref());
            let before = col(|c| c.job_state_before);
            let replacements: Vec<Option<i64>> =
                callbacks.iter().map(|c| c.replacement_attempt).collect();
            let firsts: Vec<Option<i64>> = callbacks.iter().map(|c| c.first_report_seq).collect();
            let linked: Vec<Option<i64>> = callbacks.iter().map(|c| c.linked_from_seq).collect();
            let judged: Vec<&str> = callbacks.iter().map(|c| c.judged_at.as_str()).collect();
            let created_by = col(|c| c.replacement_created_by.as_deref());
            let started = col(|c| c.replacement_started_at.as_deref());
            writer.execute_direct(
                "INSERT INTO callbacks (seq, line_seq, delivery_id, job_id, attempt, outcome,
                        arrived_at, timeout_at, disposition, reason, detail, job_state_before,
                        replacement_attempt, first_report_seq, linked_from_seq, judged_at,
                        replacement_created_by, replacement_started_at)
                 SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[],
                                      $5::bigint[], $6::text[], $7::text[], $8::text[],
                                      $9::text[], $10::text[], $11::text[], $12::text[],
                                      $13::bigint[], $14::bigint[], $15::bigint[], $16::text[],
                                      $17::text[], $18::text[])",
                &[
                    &seqs,
                    &line_seqs,
                    &deliveries,
                    &job_ids,
                    &attempts,
                    &outcomes,
                    &arrived,
                    &timeouts,
                    &dispositions,
                    &reasons,
                    &details,
                    &before,
                    &replacements,
                    &firsts,
                    &linked,
                    &judged,
                    &created_by,
                    &started,
                ],
            )?;
            let texts: Vec<CallbackText<'_>> = callbacks
                .iter()
                .map(|c| CallbackText {
                    seq: c.seq,
                    job: c.job_id.as_deref(),
                    delivery: c.delivery_id.as_deref(),
                    reason: Some(c.reason),
                    by: c.replacement_created_by.as_deref(),
                })
                .collect();
            writer.index_callback_texts(&texts)?;
        }
        let downstream = std::mem::take(&mut self.downstream);
        if !downstream.is_empty() {
            flush_downstream(writer, &downstream)?;
        }
        Ok(())
    }
}

/// Inserts the facts downstream, each table's rows in the order they came (their ids
/// are given in that order, as one insert a row gave them).
fn flush_downstream(writer: &Writer<'_>, rows: &[DownstreamRow]) -> Result<()> {
    let (mut o_job, mut o_ref, mut o_at, mut o_until, mut o_line) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_job, mut c_at, mut c_exists, mut c_line) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut n_job, mut n_kind, mut n_at, mut n_line) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row {
            DownstreamRow::Output {
                job_id,
                reference,
                stored_at,
                retention_until,
                line_seq,
            } => {
                o_job.push(job_id.as_str());
                o_ref.push(reference.as_str());
                o_at.push(stored_at.as_str());
                o_until.push(retention_until.as_deref());
                o_line.push(*line_seq);
            }
            DownstreamRow::Check {
                job_id,
                checked_at,
                exists,
                line_seq,
            } => {
                c_job.push(job_id.as_str());
                c_at.push(checked_at.as_str());
                c_exists.push(*exists);
                c_line.push(*line_seq);
            }
            DownstreamRow::Notification {
                job_id,
                kind,
                sent_at,
                line_seq,
            } => {
                n_job.push(job_id.as_str());
                n_kind.push(kind.as_str());
                n_at.push(sent_at.as_str());
                n_line.push(*line_seq);
            }
        }
    }
    if !o_job.is_empty() {
        writer.execute_direct(
            "INSERT INTO outputs (job_id, ref, stored_at, retention_until, line_seq)
             SELECT job_id, ref, stored_at, retention_until, line_seq
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
                    WITH ORDINALITY AS o (job_id, ref, stored_at, retention_until, line_seq, n)
              ORDER BY n",
            &[&o_job, &o_ref, &o_at, &o_until, &o_line],
        )?;
    }
    if !c_job.is_empty() {
        writer.execute_direct(
            "INSERT INTO output_checks (job_id, checked_at, object_exists, line_seq)
             SELECT job_id, checked_at, object_exists, line_seq
               FROM unnest($1::text[], $2::text[], $3::smallint[], $4::bigint[])
                    WITH ORDINALITY AS c (job_id, checked_at, object_exists, line_seq, n)
              ORDER BY n",
            &[&c_job, &c_at, &c_exists, &c_line],
        )?;
    }
    if !n_job.is_empty() {
        writer.execute_direct(
            "INSERT INTO notifications (job_id, kind, sent_at, line_seq)
             SELECT job_id, kind, sent_at, line_seq
               FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
                    WITH ORDINALITY AS x (job_id, kind, sent_at, line_seq, n)
              ORDER BY n",
            &[&n_job, &n_kind, &n_at, &n_line],
        )?;
    }
    Ok(())
}

impl Writer<'_> {
    /// Reads at once what the coming `lines` need: which the ledger holds, and the jobs
    /// they name (`jobs`: locked, with their attempts and their callbacks' claims).
    ///
    /// The first look of a transaction takes the ledger's ingest turn: ingests, from
    /// however many machines, write one batch at a time. A line two of them send is
    /// then kept by the first and found by the second, its sequence number the one a
    /// single ingest gives it, rather than taken by both and refused to one of them at
    /// commit. A person's writes take no turn: they wait for a job's row at most, and
    /// an ingest holding rows someone waits for ends its batch ([`Writer::others_wait`]).
    pub fn look_ahead(&mut self, lines: &[LineAhead<'_>], jobs: &[&str]) -> Result<()> {
        self.take_turn()?;
        self.look_for_lines(lines)?;
        self.look_for_jobs(jobs)
    }

    /// Does another session wait for a lock this transaction holds (a job's row a
    /// reviewer's answer needs, or the ingest turn another ingest waits for)?
    pub fn others_wait(&self) -> Result<bool> {
        Ok(self
            .row_direct(
                "SELECT EXISTS (SELECT 1 FROM pg_locks
                                 WHERE NOT granted
                                   AND pg_backend_pid() = ANY (pg_blocking_pids(pid)))",
                &[],
            )?
            .is_some_and(|row| row.get(0)))
    }

    fn look_for_lines(&mut self, lines: &[LineAhead<'_>]) -> Result<()> {
        self.ahead.borrow_mut().told.clear();
        if lines.is_empty() {
            return Ok(());
        }
        let raws: Vec<&[u8]> = lines.iter().map(|l| l.raw).collect();
        let shas: Vec<&[u8]> = lines.iter().map(|l| &l.sha256[..]).collect();
        let with_cr: Vec<Option<&[u8]>> = lines
            .iter()
            .map(|l| l.sha256_with_cr.map(|s| &s[..]))
            .collect();
        let whole: Vec<bool> = lines.iter().map(|l| l.whole).collect();
        // The line's identities as `insert_line_once` looks for them, the time key
        // computed by the server from the bytes, as the table's own column is. Each
        // look is a subquery with a limit, so that it stays a look-up by the unique
        // index for each line: as a join, a plan made for this call's thousand lines
        // read the whole table instead (14 ms a call at 250,000 lines).
        let kept = self.rows_direct(
            "SELECT q.n FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::bool[])
                             WITH ORDINALITY AS q (raw, sha, sha_cr, whole, n)
              WHERE (SELECT true FROM input_lines
                      WHERE time_key = (CASE WHEN octet_length(q.raw) > 0
                               THEN substring(q.raw
                                    FROM position('\\x226174223a22'::bytea IN q.raw) + 6
                                    FOR 16) END)
                        AND line_sha256 = q.sha
                      LIMIT 1)
                 OR (q.sha_cr IS NOT NULL AND (SELECT true FROM input_lines
                      WHERE time_key = substring((q.raw || '\\x0d'::bytea)
                               FROM position('\\x226174223a22'::bytea IN (q.raw || '\\x0d'::bytea)) + 6
                               FOR 16)
                        AND line_sha256 = q.sha_cr
                      LIMIT 1))
                 OR (q.whole AND (SELECT true FROM input_lines
                      WHERE whole_length IS NOT NULL AND line_sha256 = q.sha
                      LIMIT 1))",
            &[&raws, &shas, &with_cr, &whole],
        )?;
        let kept: HashSet<usize> = kept
            .iter()
            .map(|row| usize::try_from(row.get::<_, i64>(0) - 1).unwrap_or(usize::MAX))
            .collect();
        let mut ahead = self.ahead.borrow_mut();
        for (i, line) in lines.iter().enumerate() {
            ahead
                .told
                .insert((*line.sha256, line.whole), kept.contains(&i));
        }
        Ok(())
    }

    /// Reads a job's row (and its attempts) as they stand, for the rest of the
    /// transaction: locked by `FOR UPDATE` in an ingest, which holds the turn; in a
    /// person's write, by keeping ingests out until it ends (the turn shared), since
    /// a row lock needs a grant to update the table, which a reviewer's role has not
    /// (nor needs: a person's write changes no job). An ingest batch someone waits for
    /// ends within a thousand lines ([`Writer::others_wait`]).
    pub(super) fn job_reads_hold(&self) -> Result<bool> {
        let (turn, held) = {
            let ahead = self.ahead.borrow();
            (ahead.turn, ahead.ingests_held_off)
        };
        if turn {
            return Ok(true);
        }
        if !held {
            self.execute_direct(
                "SELECT pg_advisory_xact_lock_shared(hashtext('jobledger ingest ' || current_schema()))",
                &[],
            )?;
            self.ahead.borrow_mut().ingests_held_off = true;
        }
        Ok(false)
    }

    /// Takes the ledger's ingest turn for the rest of the transaction, once, and reads
    /// the numbers the next line and callback get.
    ///
    /// Ingests, from however many machines, write one batch at a time (an advisory lock
    /// of the ledger's schema). A line two of them send is then kept by the first and
    /// found by the second, rather than taken by both and refused to one at commit;
    /// and lines and callbacks are numbered on from the highest kept, in the
    /// transaction: a batch rolled back (a server that went away, a deadlock) leaves
    /// no gap, as a sequence's numbers would, so a re-run gives the numbers one ingest
    /// gives. A person's writes take no turn: they wait for a job's row at most, and an
    /// ingest holding rows someone waits for ends its batch ([`Writer::others_wait`]).
    fn take_turn(&self) -> Result<()> {
        if self.ahead.borrow().turn {
            return Ok(());
        }
        // Each statement planned for its parameters, for the rest of the transaction:
        // a plan made once and kept (as a prepared statement's is after a few runs) was
        // made for the tables as they were at the start, and a job's attempts, looked
        // up by a scan of the whole table then, were still looked up by one at a
        // million rows (95 ms a look-up instead of well under one).
        self.execute_direct(
            "SELECT pg_advisory_xact_lock(hashtext('jobledger ingest ' || current_schema())),
                    set_config('plan_cache_mode', 'force_custom_plan', true)",
            &[],
        )?;
        let row = self.row_direct(
            "SELECT coalesce((SELECT max(seq) FROM input_lines), 0),
                    coalesce((SELECT max(seq) FROM callbacks), 0)",
            &[],
        )?;
        let (lines, callbacks): (i64, i64) = row.map_or((0, 0), |row| (row.get(0), row.get(1)));
        let mut ahead = self.ahead.borrow_mut();
        ahead.turn = true;
        ahead.next_line = lines + 1;
        ahead.next_callback = callbacks + 1;
        Ok(())
    }

    fn look_for_jobs(&mut self, jobs: &[&str]) -> Result<()> {
        let mut ids: Vec<&str> = {
            let behind = self.behind.borrow();
            let ahead = self.ahead.borrow();
            jobs.iter()
                .copied()
                .filter(|id| behind.job(id).is_none() && !ahead.absent.contains(*id))
                .collect()
        };
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(());
        }
        // Room for all of them first: forgetting would forget what is read here.
        self.make_room_for(2 * ids.len())?;
        // In the order of their ids, as every writer locks them: two ingests locking
        // the same jobs wait for each other rather than each holding what the other
        // needs.
        let found = self.rows_direct(
            "SELECT job_id, state, accepted_at, aged_at, timeout_s, expected_age_s,
                    attempt_budget, latest_attempt, input_digest, model_digest,
                    policy_revision, result_ref, failure_cause, failure_permanent,
                    state_changed_at
               FROM jobs WHERE job_id = ANY($1) ORDER BY job_id FOR UPDATE",
            &[&ids],
        )?;
        let mut present = HashSet::new();
        for row in &found {
            let job = super::jobs::job_from(row, self.location())?;
            present.insert(job.job_id.clone());
            self.behind.borrow_mut().remember_job(job);
        }
        let attempts = self.rows_direct(
            "SELECT job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
               FROM attempts WHERE job_id = ANY($1) ORDER BY job_id, attempt FOR UPDATE",
            &[&ids],
        )?;
        for row in &attempts {
            let attempt = super::jobs::attempt_from(row, self.location())?;
            let mut behind = self.behind.borrow_mut();
            if behind.attempt(&attempt.job_id, attempt.attempt).is_none() {
                behind.remember_attempt(attempt, false);
            }
        }
        let claims = self.rows_direct(
            "SELECT job_id, attempt, seq, outcome FROM callbacks
              WHERE job_id = ANY($1) AND disposition <> 'quarantine'",
            &[&ids],
        )?;
        let mut ahead = self.ahead.borrow_mut();
        for row in &claims {
            let job_id: String = row.get(0);
            let attempt: Option<i64> = row.get(1);
            let outcome: Option<&str> = row.get(3);
            let outcome = match outcome {
                None => None,
                Some(text) => Some(
                    <Outcome as ClosedSet>::parse(text)
                        .ok_or_else(|| StoreError::Damaged {
                            ledger: self.location().clone(),
                            detail: format!("unexpected outcome {text:?} in the ledger"),
                        })?
                        .as_str(),
                ),
            };
            if let Some(attempt) = attempt {
                ahead
                    .claims
                    .entry((job_id, attempt))
                    .or_default()
                    .push((row.get(2), outcome));
            }
        }
        for id in ids {
            ahead.attempts_read.insert(id.to_owned());
            ahead.claims_read.insert(id.to_owned());
            if !present.contains(id) {
                ahead.absent.insert(id.to_owned());
            }
        }
        Ok(())
    }

    /// Keeps a line told ahead, unless kept already.
    pub(super) fn keep_told_line(&self, line: &NewLine<'_>) -> Result<Told> {
        let whole = line.whole_length.is_none();
        let as_ahead = LineAhead {
            sha256: line.sha256,
            sha256_with_cr: line.sha256_with_cr,
            raw: line.raw,
            whole,
        };
        let told = {
            let ahead = self.ahead.borrow();
            let Some(&in_ledger) = ahead.told.get(&(*line.sha256, whole)) else {
                return Ok(Told::No);
            };
            in_ledger || ahead.is_mine(&as_ahead)
        };
        if told {
            return Ok(Told::KeptBefore);
        }
        let seq = self.next_seq(true)?;
        let mut ahead = self.ahead.borrow_mut();
        ahead.mine.insert((time_key(line.raw), *line.sha256));
        if !whole {
            ahead.mine_oversized.insert(*line.sha256);
        }
        ahead.lines.push(LineRow {
            seq,
            sha256: *line.sha256,
            raw: line.raw.to_vec(),
            event: line.event.map(str::to_owned),
            status: line.status.as_str(),
            reason: line.reason.map(str::to_owned),
            ingested_at: time_text(line.ingested_at),
            whole_length: line
                .whole_length
                .map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
        });
        Ok(Told::Kept(seq))
    }

    /// Remembers a line this transaction kept by a statement of its own, so that the
    /// same line later in the transaction is found without asking.
    pub(super) fn note_kept_line(&self, line: &NewLine<'_>) {
        let mut ahead = self.ahead.borrow_mut();
        ahead.mine.insert((time_key(line.raw), *line.sha256));
        if line.whole_length.is_some() {
            ahead.mine_oversized.insert(*line.sha256);
        }
    }

    /// Is the line one this transaction kept already (by whatever statement)?
    pub(super) fn is_my_line(&self, line: &NewLine<'_>) -> bool {
        let as_ahead = LineAhead {
            sha256: line.sha256,
            sha256_with_cr: line.sha256_with_cr,
            raw: line.raw,
            whole: line.whole_length.is_none(),
        };
        self.ahead.borrow().is_mine(&as_ahead)
    }

    /// A line kept here and not written yet: marks it rejected, with the reason.
    /// `false` when it is not here.
    pub(super) fn reject_kept_line(&self, seq: i64, reason: &str) -> bool {
        let mut ahead = self.ahead.borrow_mut();
        let Some(line) = ahead.lines.iter_mut().rev().find(|l| l.seq == seq) else {
            return false;
        };
        line.status = "rejected";
        line.reason = Some(reason.to_owned());
        true
    }

    /// The bytes of a line kept here and not written yet.
    pub(super) fn kept_line_raw(&self, seq: i64) -> Option<Vec<u8>> {
        let ahead = self.ahead.borrow();
        ahead
            .lines
            .iter()
            .rev()
            .find(|l| l.seq == seq)
            .map(|l| l.raw.clone())
    }

    /// The next sequence number of a line (`line`) or a callback.
    pub(super) fn next_seq(&self, line: bool) -> Result<i64> {
        self.take_turn()?;
        let mut ahead = self.ahead.borrow_mut();
        let next = if line {
            &mut ahead.next_line
        } else {
            &mut ahead.next_callback
        };
        *next += 1;
        Ok(*next - 1)
    }

    /// Gives back the number of a line that was not kept after all (the last taken).
    pub(super) fn give_back_line_seq(&self) {
        self.ahead.borrow_mut().next_line -= 1;
    }

    /// Keeps a judged callback, to be written with the others; returns its sequence
    /// number.
    pub(super) fn keep_callback(&self, cb: &NewCallback<'_>) -> Result<i64> {
        let seq = self.next_seq(false)?;
        let mut ahead = self.ahead.borrow_mut();
        if let (Some(job_id), Some(attempt)) = (cb.job_id, cb.attempt)
            && cb.disposition != crate::decision::Disposition::Quarantine
            && ahead.claims_read.contains(job_id)
        {
            ahead
                .claims
                .entry((job_id.to_owned(), attempt))
                .or_default()
                .push((seq, cb.outcome.map(Outcome::as_str)));
        }
        ahead.callbacks.push(CallbackInsert {
            seq,
            line_seq: cb.line_seq,
            delivery_id: cb.delivery_id.map(str::to_owned),
            job_id: cb.job_id.map(str::to_owned),
            attempt: cb.attempt,
            outcome: cb.outcome.map(Outcome::as_str),
            arrived_at: opt_time_text(cb.arrived_at),
            timeout_at: opt_time_text(cb.timeout_at),
            disposition: cb.disposition.as_str(),
            reason: cb.reason.as_str(),
            detail: cb.detail.map(str::to_owned),
            job_state_before: cb.job_state_before.map(JobState::as_str),
            replacement_attempt: cb.replacement_attempt,
            first_report_seq: cb.first_report_seq,
            linked_from_seq: cb.linked_from_seq,
            judged_at: time_text(cb.judged_at),
            replacement_created_by: cb.replacement_started.as_ref().map(|r| r.0.clone()),
            replacement_started_at: opt_time_text(cb.replacement_started.as_ref().map(|r| r.1)),
        });
        Ok(seq)
    }
}
