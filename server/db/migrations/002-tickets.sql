-- Event Tickets: tickets, orders, attendees, check-ins and carts. Tickets, orders and attendees are posts
-- (one ID sequence with events), so "is this ID a ticket?" is a posts.type lookup.

CREATE TABLE tickets (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  -- The post the ticket is sold for (the API's `post_id`), usually an event.
  event_id INTEGER NOT NULL REFERENCES posts(id),
  provider TEXT NOT NULL CHECK (provider IN ('rsvp', 'tc')),
  type TEXT NOT NULL DEFAULT 'default',
  -- Price in minor units of `currency` (cents); RSVP tickets are free.
  price_minor INTEGER NOT NULL DEFAULT 0 CHECK (price_minor >= 0),
  currency TEXT NOT NULL DEFAULT 'USD',
  -- -1 means unlimited.
  capacity INTEGER NOT NULL DEFAULT -1 CHECK (capacity >= -1),
  show_description INTEGER NOT NULL DEFAULT 1,
  start_date TEXT NOT NULL DEFAULT '',
  start_time TEXT NOT NULL DEFAULT '',
  end_date TEXT NOT NULL DEFAULT '',
  end_time TEXT NOT NULL DEFAULT '',
  -- Availability window in UTC, derived from the four fields above ('' = open).
  available_from_utc TEXT NOT NULL DEFAULT '',
  available_until_utc TEXT NOT NULL DEFAULT '',
  sku TEXT NOT NULL DEFAULT '',
  iac TEXT NOT NULL DEFAULT 'none',
  sale_price_minor INTEGER,
  sale_start TEXT NOT NULL DEFAULT '',
  sale_end TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX tickets_event ON tickets(event_id);

CREATE TABLE orders (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  provider TEXT NOT NULL CHECK (provider IN ('rsvp', 'tc')),
  status TEXT NOT NULL CHECK (status IN ('completed', 'pending', 'refunded', 'cancelled', 'failed')),
  purchaser_name TEXT NOT NULL,
  purchaser_email TEXT NOT NULL,
  user_id INTEGER NOT NULL DEFAULT 0,
  total_minor INTEGER NOT NULL DEFAULT 0,
  currency TEXT NOT NULL DEFAULT 'USD',
  created_utc TEXT NOT NULL,
  completed_utc TEXT,
  gateway_ref TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX orders_status ON orders(status);

CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(post_id) ON DELETE CASCADE,
  ticket_id INTEGER NOT NULL REFERENCES tickets(post_id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  price_minor INTEGER NOT NULL,
  PRIMARY KEY (order_id, ticket_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX order_items_ticket ON order_items(ticket_id);

-- Monotonic change counter for the kiosk's delta download (`changed_since` / `X-EVT-Cursor`).
CREATE TABLE sequences (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
INSERT INTO sequences (name, value) VALUES ('attendee_change', 0);

CREATE TABLE attendees (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  ticket_id INTEGER NOT NULL REFERENCES tickets(post_id),
  -- Denormalised from the ticket: every attendee list is filtered by event.
  event_id INTEGER NOT NULL REFERENCES posts(id),
  order_id INTEGER REFERENCES orders(post_id),
  provider TEXT NOT NULL CHECK (provider IN ('rsvp', 'tc')),
  full_name TEXT NOT NULL,
  email TEXT NOT NULL,
  -- Random, at least 10 hex characters, unique per attendee.
  security_code TEXT NOT NULL UNIQUE,
  price_minor INTEGER NOT NULL DEFAULT 0,
  optout INTEGER NOT NULL DEFAULT 0,
  -- RSVP going status: 'yes' or 'no' (NULL for paid tickets).
  rsvp_status TEXT,
  checked_in INTEGER NOT NULL DEFAULT 0,
  -- The standing accepted check-in (NULL when not checked in).
  checkin_id INTEGER,
  change_seq INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX attendees_event ON attendees(event_id, post_id);
CREATE INDEX attendees_ticket ON attendees(ticket_id);
CREATE INDEX attendees_order ON attendees(order_id);
CREATE INDEX attendees_change ON attendees(event_id, change_seq);

-- Every scan, accepted or not.
CREATE TABLE checkins (
  id INTEGER PRIMARY KEY,
  attendee_id INTEGER,
  event_id INTEGER,
  result TEXT NOT NULL CHECK (result IN ('accepted', 'checked_out', 'conflict', 'rejected')),
  reason TEXT,
  -- Moment of the scan on the device, and arrival at the server (UTC, ISO 8601).
  scanned_at TEXT NOT NULL,
  received_at TEXT NOT NULL,
  device_id TEXT,
  nonce TEXT,
  source TEXT NOT NULL,
  user_id INTEGER NOT NULL DEFAULT 0,
  api_key_id INTEGER
) STRICT;
CREATE UNIQUE INDEX checkins_nonce ON checkins(nonce) WHERE nonce IS NOT NULL;
CREATE INDEX checkins_attendee ON checkins(attendee_id, id);
CREATE INDEX checkins_event ON checkins(event_id, id);

-- Carts: a signed-in user's (owner 'user:<id>') or an anonymous visitor's (owner 'cookie:<token>').
CREATE TABLE carts (
  id INTEGER PRIMARY KEY,
  owner TEXT NOT NULL UNIQUE,
  provider TEXT NOT NULL DEFAULT '',
  post_id INTEGER NOT NULL DEFAULT 0,
  meta TEXT NOT NULL DEFAULT '[]',
  updated_utc TEXT NOT NULL
) STRICT;

CREATE TABLE cart_items (
  cart_id INTEGER NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
  ticket_id INTEGER NOT NULL REFERENCES tickets(post_id) ON DELETE CASCADE,
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  optout INTEGER NOT NULL DEFAULT 0,
  iac TEXT NOT NULL DEFAULT 'none',
  PRIMARY KEY (cart_id, ticket_id)
) STRICT, WITHOUT ROWID;

-- Any change to an attendee (its row or its post) moves it past every cursor handed out before.
CREATE TRIGGER attendees_change_insert AFTER INSERT ON attendees BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'attendee_change';
  UPDATE attendees SET change_seq = (SELECT value FROM sequences WHERE name = 'attendee_change') WHERE post_id = NEW.post_id;
END;
CREATE TRIGGER attendees_change_update AFTER UPDATE OF ticket_id, event_id, order_id, full_name, email, security_code, optout, rsvp_status, checked_in, checkin_id ON attendees BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'attendee_change';
  UPDATE attendees SET change_seq = (SELECT value FROM sequences WHERE name = 'attendee_change') WHERE post_id = NEW.post_id;
END;
CREATE TRIGGER attendee_posts_change AFTER UPDATE OF status, title ON posts WHEN NEW.type = 'attendee' BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'attendee_change';
  UPDATE attendees SET change_seq = (SELECT value FROM sequences WHERE name = 'attendee_change') WHERE post_id = NEW.id;
END;
-- An order changing status changes whether its attendees may enter.
CREATE TRIGGER order_status_change AFTER UPDATE OF status ON orders BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'attendee_change';
  UPDATE attendees SET change_seq = (SELECT value FROM sequences WHERE name = 'attendee_change') WHERE order_id = NEW.post_id;
END;
