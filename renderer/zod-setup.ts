import { z } from 'zod';

// Zod's fast path compiles validators with `new Function`, which the page's CSP (rightly) forbids. This module
// is imported first by main.ts: ES modules run in import order, so the setting is in place before any other
// module builds or parses a schema (setting it in main.ts's body would be too late).
z.config({ jitless: true });
