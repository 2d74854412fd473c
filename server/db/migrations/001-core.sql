-- Site options (key/value).
CREATE TABLE options (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  login TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email TEXT NOT NULL DEFAULT '',
  display_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('administrator', 'organizer', 'door')),
  registered TEXT NOT NULL
) STRICT;

-- WordPress 5.6 application passwords: only a salted scrypt hash is kept.
CREATE TABLE app_passwords (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  hash TEXT NOT NULL,
  created TEXT NOT NULL,
  last_used TEXT,
  last_ip TEXT
) STRICT;
CREATE INDEX app_passwords_user ON app_passwords(user_id);

-- Door device keys. The key's public id is its row id; the secret part is stored hashed.
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  hash TEXT NOT NULL,
  event_id INTEGER,
  created TEXT NOT NULL,
  created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  last_used TEXT,
  revoked_at TEXT
) STRICT;

-- One ID sequence for every post-like object, as in WordPress (AUTOINCREMENT: IDs are never reused).
CREATE TABLE posts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'publish',
  author INTEGER NOT NULL DEFAULT 0,
  slug TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '',
  title_et TEXT,
  content TEXT NOT NULL DEFAULT '',
  content_et TEXT,
  excerpt TEXT NOT NULL DEFAULT '',
  excerpt_et TEXT,
  password TEXT NOT NULL DEFAULT '',
  parent INTEGER NOT NULL DEFAULT 0,
  menu_order INTEGER NOT NULL DEFAULT 0,
  image_id INTEGER NOT NULL DEFAULT 0,
  date TEXT NOT NULL,
  date_gmt TEXT NOT NULL,
  modified TEXT NOT NULL,
  modified_gmt TEXT NOT NULL,
  -- status before the post was trashed
  trashed_from TEXT
) STRICT;
CREATE INDEX posts_type_status ON posts(type, status);
CREATE UNIQUE INDEX posts_type_slug ON posts(type, slug) WHERE slug <> '';
CREATE INDEX posts_parent ON posts(parent) WHERE parent <> 0;

-- Media (featured images and files attached to posts).
CREATE TABLE attachments (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  url TEXT NOT NULL DEFAULT '',
  file_path TEXT,
  mime_type TEXT NOT NULL DEFAULT '',
  width INTEGER,
  height INTEGER,
  filesize INTEGER,
  protected INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE events (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  start_local TEXT NOT NULL,
  end_local TEXT NOT NULL,
  start_utc TEXT NOT NULL,
  end_utc TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT '',
  all_day INTEGER NOT NULL DEFAULT 0,
  cost TEXT NOT NULL DEFAULT '',
  currency_symbol TEXT NOT NULL DEFAULT '',
  currency_code TEXT NOT NULL DEFAULT '',
  currency_position TEXT NOT NULL DEFAULT '',
  website TEXT NOT NULL DEFAULT '',
  show_map INTEGER,
  show_map_link INTEGER,
  hide_from_listings INTEGER NOT NULL DEFAULT 0,
  featured INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX events_start ON events(start_utc, post_id);
CREATE INDEX events_end ON events(end_utc);
CREATE INDEX events_featured ON events(featured) WHERE featured = 1;

CREATE TABLE venues (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  address TEXT NOT NULL DEFAULT '',
  city TEXT NOT NULL DEFAULT '',
  country TEXT NOT NULL DEFAULT '',
  province TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT '',
  zip TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  stateprovince TEXT NOT NULL DEFAULT '',
  website TEXT NOT NULL DEFAULT '',
  show_map INTEGER,
  show_map_link INTEGER,
  lat REAL,
  lng REAL
) STRICT;
CREATE INDEX venues_geo ON venues(lat, lng) WHERE lat IS NOT NULL;

CREATE TABLE organizers (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  phone TEXT NOT NULL DEFAULT '',
  website TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE event_venues (
  event_id INTEGER NOT NULL REFERENCES events(post_id) ON DELETE CASCADE,
  venue_id INTEGER NOT NULL REFERENCES venues(post_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (event_id, venue_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_venues_venue ON event_venues(venue_id, event_id);

CREATE TABLE event_organizers (
  event_id INTEGER NOT NULL REFERENCES events(post_id) ON DELETE CASCADE,
  organizer_id INTEGER NOT NULL REFERENCES organizers(post_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (event_id, organizer_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_organizers_organizer ON event_organizers(organizer_id, event_id);

-- Terms have their own ID sequence, as in WordPress.
CREATE TABLE terms (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  taxonomy TEXT NOT NULL,
  name TEXT NOT NULL,
  name_et TEXT,
  slug TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  description_et TEXT,
  parent INTEGER NOT NULL DEFAULT 0,
  term_group INTEGER NOT NULL DEFAULT 0,
  -- Published posts carrying the term, kept exact by the triggers below (WordPress keeps term_taxonomy.count).
  count INTEGER NOT NULL DEFAULT 0,
  UNIQUE (taxonomy, slug)
) STRICT;

CREATE TABLE term_relationships (
  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  term_id INTEGER NOT NULL REFERENCES terms(id) ON DELETE CASCADE,
  PRIMARY KEY (post_id, term_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX term_relationships_term ON term_relationships(term_id, post_id);

CREATE TRIGGER term_count_insert AFTER INSERT ON term_relationships
WHEN (SELECT status FROM posts WHERE id = NEW.post_id) = 'publish' BEGIN
  UPDATE terms SET count = count + 1 WHERE id = NEW.term_id;
END;
CREATE TRIGGER term_count_delete AFTER DELETE ON term_relationships
WHEN (SELECT status FROM posts WHERE id = OLD.post_id) = 'publish' BEGIN
  UPDATE terms SET count = count - 1 WHERE id = OLD.term_id;
END;
CREATE TRIGGER term_count_status AFTER UPDATE OF status ON posts
WHEN (OLD.status = 'publish') <> (NEW.status = 'publish') BEGIN
  UPDATE terms SET count = count + (CASE WHEN NEW.status = 'publish' THEN 1 ELSE -1 END)
  WHERE id IN (SELECT term_id FROM term_relationships WHERE post_id = NEW.id);
END;
