-- PostgreSQL form of migrations/017-order-hold-client.sql (first written from it mechanically; kept here since).
-- One client address holds at most EVT_MAX_TICKETS_PER_ORDER places in pending orders at a time (CONTRACT
-- section 3): an anonymous checkout's order keeps a keyed digest of its client address (never the address), so
-- the places that address holds can be counted. NULL for orders made by signed-in callers and before this.
ALTER TABLE orders ADD COLUMN hold_client TEXT;
CREATE INDEX orders_hold_client ON orders(hold_client) WHERE status = 'pending' AND hold_client IS NOT NULL;
