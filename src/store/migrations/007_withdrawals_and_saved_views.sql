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
