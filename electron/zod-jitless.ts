// Imported first by the preload, before any schema is built: Zod probes `new Function` when it builds an
// object schema, and in a page whose CSP forbids eval that probe is reported as a violation even though
// Zod catches it. Jitless mode skips the probe; the preload parses nothing, so it loses no speed.
import * as z from 'zod/mini';

z.config({ jitless: true });
