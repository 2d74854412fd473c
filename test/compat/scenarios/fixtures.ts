import type { Req } from '../lib/types.ts';

/**
 * The shared fixture set, created through each side's own API as the administrator. Dates are fixed days of next
 * year, so they always fall inside the archives' default window (now .. now + 2 years) and the normaliser can
 * write them as `{Y1}-MM-DD`. The creates are compared like any other request.
 */
export function fixtures(): Req[] {
  const admin = { as: 'admin' as const, method: 'POST' };
  const ev = (name: string, json: Record<string, unknown>): Req => ({
    name: `fixture.event.${name}`,
    ...admin,
    path: '{E}/events',
    json,
    save: `ev_${name}`,
  });
  const ticket = (name: string, eventSym: string, form: Record<string, unknown>): Req => ({
    name: `fixture.ticket.${name}`,
    ...admin,
    path: '{T}/tickets',
    form: { post_id: `{${eventSym}}`, add_ticket_nonce: `{nonce:add_ticket_nonce:${eventSym}}`, ...form },
    save: `tk_${name}`,
  });
  const attendee = (name: string, ticketSym: string, fullName: string, email: string, extra: Record<string, unknown> = {}): Req => ({
    name: `fixture.attendee.${name}`,
    ...admin,
    path: '{T}/attendees',
    json: { ticket_id: `{${ticketSym}}`, full_name: fullName, email, ...extra },
    save: `at_${name}`,
  });
  return [
    { name: 'fixture.tag.outdoor', ...admin, path: '{E}/tags', json: { name: 'Outdoor', description: 'Under the sky' }, save: 'tag_outdoor' },
    { name: 'fixture.tag.indoor', ...admin, path: '{E}/tags', json: { name: 'Indoor' }, save: 'tag_indoor' },
    {
      name: 'fixture.category.music',
      ...admin,
      path: '{E}/categories',
      json: { name: 'Music', description: 'Concerts and gigs' },
      save: 'cat_music',
    },
    { name: 'fixture.category.jazz', ...admin, path: '{E}/categories', json: { name: 'Jazz', parent: '{cat_music}' }, save: 'cat_jazz' },
    { name: 'fixture.category.talks', ...admin, path: '{E}/categories', json: { name: 'Talks', slug: 'talks' }, save: 'cat_talks' },
    {
      name: 'fixture.venue.hall',
      ...admin,
      path: '{E}/venues',
      json: {
        venue: 'Town Hall',
        description: 'The big hall',
        address: '1 Main Street',
        city: 'Tartu',
        country: 'Estonia',
        zip: '51003',
        phone: '+372 555 0100',
        website: 'https://example.com/hall',
      },
      save: 've_hall',
    },
    { name: 'fixture.venue.park', ...admin, path: '{E}/venues', json: { venue: 'Riverside Park', city: 'Tartu' }, save: 've_park' },
    {
      name: 'fixture.organizer.ada',
      ...admin,
      path: '{E}/organizers',
      json: {
        organizer: 'Ada Events',
        email: 'ada@example.com',
        phone: '+372 555 0200',
        website: 'https://example.com/ada',
        description: 'Ada runs concerts',
      },
      save: 'org_ada',
    },
    { name: 'fixture.organizer.bob', ...admin, path: '{E}/organizers', json: { organizer: 'Bob Talks' }, save: 'org_bob' },
    ev('concert', {
      title: 'Spring Concert',
      description: '<p>An evening of music.</p>',
      start_date: '{Y1}-03-10 19:00:00',
      end_date: '{Y1}-03-10 22:00:00',
      categories: ['{cat_music}'],
      tags: ['{tag_outdoor}'],
      venue: '{ve_hall}',
      organizer: ['{org_ada}'],
      cost: '25',
      website: 'https://example.com/concert',
    }),
    ev('jazz', {
      title: 'Jazz Night',
      description: 'Late night jazz',
      start_date: '{Y1}-04-01 20:00:00',
      end_date: '{Y1}-04-01 23:00:00',
      categories: ['{cat_jazz}'],
      tags: ['{tag_indoor}'],
      venue: '{ve_park}',
    }),
    ev('talk', {
      title: 'Science Talk',
      description: 'A talk about stars',
      excerpt: 'Stars explained',
      start_date: '{Y1}-05-05 10:00:00',
      end_date: '{Y1}-05-05 12:00:00',
      categories: ['{cat_talks}'],
      organizer: ['{org_bob}', '{org_ada}'],
      featured: true,
      cost: '0',
      show_map: true,
      show_map_link: true,
    }),
    ev('allday', { title: 'Open Day', start_date: '{Y1}-06-01 00:00:00', end_date: '{Y1}-06-01 23:59:59', all_day: true, venue: '{ve_hall}' }),
    ev('secret', {
      title: 'Secret Gathering',
      description: 'secret plans',
      start_date: '{Y1}-04-20 18:00:00',
      end_date: '{Y1}-04-20 21:00:00',
      password: 'sesame',
      cost: '10',
    }),
    ev('draft', { title: 'Draft Plans', start_date: '{Y1}-07-01 10:00:00', end_date: '{Y1}-07-01 11:00:00', status: 'draft' }),
    ev('trash', { title: 'Cancelled Fair', start_date: '{Y1}-08-01 10:00:00', end_date: '{Y1}-08-01 16:00:00' }),
    { name: 'fixture.event.trash.delete', as: 'admin', method: 'DELETE', path: '{E}/events/{ev_trash}' },
    ticket('ga', 'ev_concert', { provider: 'tc', name: 'General admission', description: 'Standing', price: '25', ticket: { capacity: 100 } }),
    ticket('vip', 'ev_concert', { provider: 'tc', name: 'VIP', description: 'Front rows', price: '60', ticket: { capacity: 20 } }),
    ticket('rsvp', 'ev_talk', { provider: 'rsvp', name: 'Free seat', ticket: { capacity: 50 } }),
    ticket('jazz', 'ev_jazz', { provider: 'tc', name: 'Jazz entry', price: '15', ticket: { capacity: 30 } }),
    attendee('grace', 'tk_ga', 'Grace Hopper', 'grace@example.com'),
    attendee('alan', 'tk_ga', 'Alan Turing', 'alan@example.com'),
    attendee('edsger', 'tk_rsvp', 'Edsger Dijkstra', 'edsger@example.com'),
    attendee('barbara', 'tk_vip', 'Barbara Liskov', 'barbara@example.com'),
    attendee('ken', 'tk_jazz', 'Ken Thompson', 'ken@example.com'),
    { name: 'fixture.attendee.alan.checkin', as: 'admin', method: 'PUT', path: '{T}/attendees/{at_alan}', json: { check_in: true } },
  ];
}
