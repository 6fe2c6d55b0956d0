-- jobledger ledger, schema 7: taking back a request before it is sent, and filters
-- a team saves under a name.
--
-- A withdrawal is its own row, as an answer is: the outbox row keeps what was asked,
-- by whom and when, and the withdrawal says who took it back, when and why. A request
-- is withdrawn at most once.

CREATE TABLE request_withdrawals (
    id            INTEGER PRIMARY KEY,
    request_id    INTEGER NOT NULL UNIQUE REFERENCES outbox (id) DEFERRABLE INITIALLY DEFERRED,
    withdrawn_by  TEXT    NOT NULL,
    withdrawn_at  TEXT    NOT NULL,
    note          TEXT    NOT NULL DEFAULT ''
) STRICT;

-- A saved view is a console tab and a query in the filter language. Saving a name
-- again adds a row; the latest row of a name is the view, the earlier ones its history.

CREATE TABLE saved_views (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL,
    tab       TEXT    NOT NULL,
    query     TEXT    NOT NULL,
    saved_by  TEXT    NOT NULL,
    saved_at  TEXT    NOT NULL
) STRICT;
CREATE INDEX saved_views_by_name ON saved_views (name, id);

-- Sorting the review lists (held and quarantined) by a column other than ledger
-- order reads one of these, in that order, by key: a page costs the same at the first
-- row and the millionth. Each expression is the one the store sorts by, NULLs made a
-- value so that the key compares.
CREATE INDEX callbacks_review_by_gap ON callbacks (
    disposition,
    coalesce(round((julianday(arrived_at) - julianday(timeout_at)) * 86400.0, 3), -1e15),
    seq
) WHERE (disposition = 'hold' OR disposition = 'quarantine');
CREATE INDEX callbacks_review_by_arrival_time ON callbacks (disposition, coalesce(arrived_at, ''), seq)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
CREATE INDEX callbacks_review_by_timeout ON callbacks (disposition, coalesce(timeout_at, ''), seq)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
CREATE INDEX callbacks_review_by_reason ON callbacks (disposition, reason, seq)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
