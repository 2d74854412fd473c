import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { systemContext } from '../../server/system-context.ts';
import { createEvent } from '../../server/domain/events/event-write.ts';
import { createLinked } from '../../server/domain/events/linked-write.ts';
import { resolveTermRefs } from '../../server/domain/events/refs.ts';
import { TAXONOMY } from '../../server/domain/events/taxonomy.ts';
import { formatInZone } from '../../shared/dates.ts';
import { rng } from '../../shared/random.ts';

/** Seeds `EVENTS` events over the next year with 50 venues, 30 organizers, 8 categories and 20 tags (bench:server, bench:doors). */
export async function seedEvents(dbFile: string, EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)): Promise<{ eventIds: number[] }> {
  const db = await openDatabase(dbFile);
  const config = loadConfig({ EVT_DB: dbFile, EVT_LOG: 'off' });
  const admin = await insertUser(db, { login: 'bench', email: 'bench@example.test', role: 'administrator' });
  const ctx = await systemContext(db, config, admin.id);
  const random = rng(42);
  const t0 = performance.now();
  const eventIds = await db.transaction(async () => {
    const venues: number[] = [];
    for (let i = 0; i < 50; i++) {
      venues.push(
        await createLinked(ctx, 'venue', {
          venue: `Venue ${i}`,
          city: 'Tallinn',
          address: `Street ${i}`,
          geo_lat: 59 + random(),
          geo_lng: 24 + random(),
        }),
      );
    }
    const organizers: number[] = [];
    for (let i = 0; i < 30; i++) organizers.push(await createLinked(ctx, 'organizer', { organizer: `Organizer ${i}`, email: `o${i}@example.test` }));
    const cats: number[] = [];
    for (const c of ['Music', 'Theatre', 'Film', 'Talks', 'Family', 'Sports', 'Food', 'Art']) {
      cats.push((await resolveTermRefs(ctx, TAXONOMY.categories, [c], 'categories', true))[0] as number);
    }
    const tags: number[] = [];
    for (let i = 0; i < 20; i++) tags.push((await resolveTermRefs(ctx, TAXONOMY.tags, [`tag-${i}`], 'tags', true))[0] as number);
    const ids: number[] = [];
    const now = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      const start = `${formatInZone(new Date(now + Math.floor(random() * 365 * 86400_000)), 'UTC').slice(0, 13)}:00:00`;
      ids.push(
        await createEvent(ctx, {
          title: `Event ${i}`,
          description: `Description of event ${i}.\n\nA second paragraph with more words about the evening.`,
          start_date: start,
          end_date: `${start.slice(0, 11)}23:00:00`,
          cost: String(5 + (i % 30)),
          venue: venues[i % venues.length],
          organizer: [organizers[i % organizers.length]],
          categories: [cats[i % cats.length]],
          tags: [tags[i % tags.length], tags[(i * 7) % tags.length]],
          featured: i % 17 === 0,
        }),
      );
    }
    return ids;
  });
  process.stdout.write(`seeded ${EVENTS} events in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  await db.close();
  return { eventIds };
}
