import type { TestServer } from './server.ts';

/** A signed-in user of `role` named `login`: its Authorization header and its user ID. */
export async function userWithId(s: TestServer, role: 'organizer' | 'door', login: string): Promise<{ auth: string; id: number }> {
  const auth = await s.userAuth(role, login);
  const id = ((await s.db.prepare('SELECT id FROM users WHERE login = ?').get(login)) as { id: number }).id;
  return { auth, id };
}

/** The create body of a draft event, venue or organizer (or of a tag or category) called `name`. */
export function draftBody(kind: 'event' | 'venue' | 'organizer' | 'tag' | 'category', name: string): Record<string, unknown> {
  return kind === 'event'
    ? { title: name, start_date: '2033-05-01 10:00', end_date: '2033-05-01 12:00', status: 'draft' }
    : kind === 'venue'
      ? { venue: name, city: 'Tartu', status: 'draft' }
      : kind === 'organizer'
        ? { organizer: name, email: 'org@example.test', status: 'draft' }
        : { name, description: 'kept' };
}
