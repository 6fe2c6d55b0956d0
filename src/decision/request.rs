//! What a person may ask of the outside, and where such a request stands: stored in
//! the outbox and named in reports, so a closed set like the states.

use crate::closed_set::closed_set;

closed_set! {
    /// What a person may ask of the outside.
    pub enum RequestKind("request") {
        /// Run the job again, same job id and pinned digests, within its attempt budget.
        Retry,
        /// Ask the remote side to stop the job.
        Cancel,
    }
}

closed_set! {
    /// Where a request in the outbox stands.
    pub enum RequestStatus("request status") {
        /// Waiting to be sent to the outside.
        Pending,
        /// Taken back by a person before it was sent (a row of its own records who,
        /// when and why; the request's row is never changed).
        Withdrawn,
    }
}
