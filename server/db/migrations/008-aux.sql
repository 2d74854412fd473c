-- Auxiliary namespaces: protected files, security scanner, marketing audience, search-engine meta.

-- Uploaded files. The attachment post (posts + attachments) is the file's identity; this row keeps what the
-- upload route learned about the bytes. `attachments.file_path` is relative to `<dataDir>/files/`.
CREATE TABLE file_uploads (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  -- The client's file name after validation (shown and used in the public URL, never as a path).
  name TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  uploaded_by INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL
) STRICT;

-- Private links of protected files (Prevent Direct Access "advance files"). The URL token is signed with the
-- site secret and names this row, so revoking the row (unprotecting) kills every link at once.
CREATE TABLE private_links (
  id INTEGER PRIMARY KEY,
  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  created TEXT NOT NULL,
  expires TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0,
  revoked INTEGER NOT NULL DEFAULT 0,
  created_by INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX private_links_post ON private_links(post_id, id);

-- Security scanner: one row per scan, the issues it found.
CREATE TABLE security_scans (
  id INTEGER PRIMARY KEY,
  started TEXT NOT NULL,
  finished TEXT NOT NULL,
  issue_count INTEGER NOT NULL,
  user_id INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE security_issues (
  id INTEGER PRIMARY KEY,
  scan_id INTEGER NOT NULL REFERENCES security_scans(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  severity INTEGER NOT NULL,
  -- Wordfence statuses: new, ignoreP (ignore always), ignoreC (ignore until it changes).
  status TEXT NOT NULL CHECK (status IN ('new', 'ignoreP', 'ignoreC')),
  -- Identifies "the same problem" across scans (type + subject) so a dismissal survives a rescan.
  ignore_key TEXT NOT NULL,
  -- Digest of the problem's details: an ignoreC dismissal lapses when it changes.
  detail_hash TEXT NOT NULL,
  short_msg TEXT NOT NULL,
  long_msg TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}',
  time TEXT NOT NULL,
  last_updated TEXT NOT NULL
) STRICT;
CREATE INDEX security_issues_scan ON security_issues(scan_id, id);

-- Dismissals by ignore key, kept apart from the issues of any one scan.
CREATE TABLE security_dismissals (
  ignore_key TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('ignoreP', 'ignoreC')),
  detail_hash TEXT NOT NULL,
  time TEXT NOT NULL
) STRICT;

-- Marketing: attendees' consent to marketing mail, and the audience as last synchronised.
CREATE TABLE marketing_optins (
  attendee_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  consent INTEGER NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  time TEXT NOT NULL
) STRICT;

CREATE TABLE marketing_audience (
  email TEXT PRIMARY KEY COLLATE NOCASE,
  full_name TEXT NOT NULL,
  attendee_id INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('subscribed', 'unsubscribed')),
  synced TEXT NOT NULL
) STRICT;

-- Search-engine meta per post.
CREATE TABLE seo_meta (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  title TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  canonical TEXT NOT NULL DEFAULT '',
  noindex INTEGER NOT NULL DEFAULT 0,
  nofollow INTEGER NOT NULL DEFAULT 0,
  updated TEXT NOT NULL
) STRICT;
