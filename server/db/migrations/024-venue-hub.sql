-- The venue hub (CONTRACT section 9): a server that mirrors one event of a site and pushes its check-ins there.
--
-- checkins.upstream: what became of a scan at the site. NULL: not sent (a hub sends its accepted check-ins and
-- check-outs; a site never sends any); 'sent': the site recorded it; 'conflict' / 'rejected': the site refused it
-- (another check-in stood there first, or the ticket was not valid there); 'mirror': a check-in the site made,
-- copied here by the pull (never sent back).
ALTER TABLE checkins ADD COLUMN upstream TEXT;
-- A mirrored check-in's door, as the site named it ("Door 1"): there is no local key to read the label from.
ALTER TABLE checkins ADD COLUMN device_label TEXT;
-- A mirrored check-in that overruled one of this hub's (the site had another first): the hub's losing scan, so
-- the kiosk that made it is told, as it is told of a conflict at the hub.
ALTER TABLE checkins ADD COLUMN replaces_id INTEGER;

-- The hub's own state: the site's delta cursor, last contact, the site's time zone (name -> JSON value).
CREATE TABLE hub_state (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
