-- PostgreSQL form of migrations/010-order-hold.sql (first written from it mechanically; kept here since).
-- Pending orders hold their places for a while (CONTRACT section 3, EVT_ORDER_HOLD_MINUTES): past
-- `hold_until_utc` an unpaid order counts for nothing and the sweep cancels it. NULL means no expiry (orders
-- made before this migration, and pending sales staff enter by hand at the box office).
ALTER TABLE orders ADD COLUMN hold_until_utc TEXT;
CREATE INDEX orders_hold ON orders(hold_until_utc) WHERE status = 'pending' AND hold_until_utc IS NOT NULL;

-- Carts untouched for a cart cookie's lifetime are dropped by the same sweep; this finds them (and the oldest
-- visitor carts when their number reaches its bound).
CREATE INDEX carts_updated ON carts(updated_utc);
