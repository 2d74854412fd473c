-- Signed tickets (CONTRACT section 8): each event's Ed25519 key pairs. The private key is sealed (AES-256-GCM
-- under the site secret, server/marketing/secret-box.ts), as the other credentials the server must use later,
-- in a database file written 0600. Numbered 020, not 019: the check-in lists branch takes 019.
--
-- One current key an event (`retired_ms` NULL), made when first needed; a rotation retires it and makes another.
-- A retired key still verifies tickets issued under it until it is revoked (`revoked_ms`); door devices are
-- handed every key not revoked.
CREATE TABLE evt_signing_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id INTEGER NOT NULL,
  kid TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  private_box TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  retired_ms INTEGER,
  revoked_ms INTEGER
) STRICT;
-- At most one current key an event, whatever processes race to make it (an insert that loses does nothing).
CREATE UNIQUE INDEX evt_signing_keys_current ON evt_signing_keys(event_id) WHERE retired_ms IS NULL;
CREATE INDEX evt_signing_keys_event ON evt_signing_keys(event_id, id);
