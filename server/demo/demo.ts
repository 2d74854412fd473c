import type { Config } from '../config.ts';
import type { Db } from '../db/connection.ts';
import { insertUser, findUserByLogin } from '../db/repos/users.ts';
import { createAppPassword } from '../auth/credentials.ts';
import { systemContext } from '../system-context.ts';
import { createEvent } from '../domain/events/event-write.ts';
import { createLinked } from '../domain/events/linked-write.ts';
import { formatInZone } from '../../shared/dates.ts';
import { CATEGORIES, ORGANIZERS, TAGS, TITLES, VENUES } from './content.ts';
import { updateTerm } from '../db/repos/terms.ts';
import { countCalendarPosts, updatePost } from '../db/repos/posts.ts';
import { resolveTermRefs } from '../domain/events/refs.ts';
import { TAXONOMY } from '../domain/events/taxonomy.ts';
import { demoTickets } from './tickets.ts';
import { rng } from '../../shared/random.ts';

export interface DemoOptions {
  events: number;
  attendees: number;
}

/** Fills an empty database with a believable calendar: venues, organizers, terms, events, tickets, attendees. */
export async function runDemo(db: Db, config: Config, opts: DemoOptions, out: (line: string) => void): Promise<void> {
  const existing = await countCalendarPosts(db);
  if (existing > 0)
    throw new Error(`The database ${config.dbFile} already has ${existing} events, venues or organizers; the demo only fills an empty one.`);
  const random = rng(20261122);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  let admin = await findUserByLogin(db, 'demo-admin');
  let adminPassword: string | undefined;
  await db.transaction(async () => {
    if (!admin) {
      admin = await insertUser(db, {
        login: 'demo-admin',
        email: 'admin@doorstep.example',
        displayName: 'Demo Administrator',
        role: 'administrator',
      });
      adminPassword = (await createAppPassword(db, admin.id, 'demo')).password;
    }
  });
  const ctx = await systemContext(db, config, admin!.id);
  const ids = await db.transaction(async () => {
    const venues: number[] = [];
    for (const v of VENUES) {
      venues.push(
        await createLinked(ctx, 'venue', {
          venue: v.name,
          address: v.address,
          city: v.city,
          country: 'Estonia',
          zip: v.zip,
          phone: v.phone,
          website: v.website,
          description: v.description,
          geo_lat: v.lat,
          geo_lng: v.lng,
        }),
      );
    }
    const organizers: number[] = [];
    for (const o of ORGANIZERS) {
      organizers.push(
        await createLinked(ctx, 'organizer', { organizer: o.name, email: o.email, phone: o.phone, website: o.website, description: o.description }),
      );
    }
    for (const c of CATEGORIES) {
      const [id] = await resolveTermRefs(ctx, TAXONOMY.categories, [c.name], 'categories', true);
      await updateTerm(db, id, { name_et: c.et, description: c.description });
    }
    for (const t of TAGS) await resolveTermRefs(ctx, TAXONOMY.tags, [t], 'tags', true);
    const events: number[] = [];
    const now = Date.now();
    for (let i = 0; i < opts.events; i++) {
      const cat = pick(CATEGORIES);
      const title = pick(TITLES[cat.name]);
      const dayOffset = Math.floor((i / Math.max(1, opts.events)) * 180) + Math.floor(random() * 3) - 1;
      const start = new Date(now + dayOffset * 86400_000);
      const allDay = cat.name === 'Festival' && random() < 0.5;
      const hour = allDay ? 0 : pick([10, 12, 14, 17, 18, 19, 19, 20]);
      const startLocal = `${formatInZone(start, config.timezone).slice(0, 10)} ${String(hour).padStart(2, '0')}:${pick(['00', '00', '30'])}:00`;
      const durationH = cat.name === 'Conference' ? 8 : cat.name === 'Workshop' ? 3 : 2;
      const endLocal = `${startLocal.slice(0, 11)}${String(Math.min(23, hour + durationH)).padStart(2, '0')}:${startLocal.slice(14)}`;
      const price = cat.free ? 0 : pick([10, 15, 20, 25, 35, 49]);
      const id = await createEvent(ctx, {
        title,
        description: `${cat.blurb}\n\nDoors open 30 minutes before the start. Tickets are checked at the door with the QR code from your confirmation e-mail.`,
        start_date: startLocal,
        end_date: endLocal,
        all_day: allDay,
        timezone: config.timezone,
        cost: price ? String(price) : '0',
        currency_symbol: '€',
        currency_code: 'EUR',
        currency_position: 'postfix',
        venue: await pick(venues),
        organizer: random() < 0.2 ? [await pick(organizers), await pick(organizers)] : [await pick(organizers)],
        categories: [cat.name],
        tags: [pick(TAGS), pick(TAGS)],
        featured: random() < 0.08,
        sticky: random() < 0.03,
        status: random() < 0.05 ? 'draft' : 'publish',
      });
      if (random() < 0.3) await updatePost(db, id, { title_et: `${title} (${cat.et})` });
      events.push(id);
    }
    return { venues, organizers, events };
  });
  out(
    `Created ${ids.venues.length} venues, ${ids.organizers.length} organizers, ${CATEGORIES.length} categories, ${TAGS.length} tags and ${ids.events.length} events.`,
  );
  if (adminPassword) {
    out(`Administrator: demo-admin, application password: ${adminPassword}`);
    out(`  curl -u 'demo-admin:${adminPassword}' ${config.publicUrl}/wp-json/evt/events/v1/events`);
  }
  await demoTickets(db, config, ctx, ids.events, opts.attendees, random, out);
}
