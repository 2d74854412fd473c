import type { Req, Role } from '../lib/types.ts';

/**
 * The events namespace: archives with every parameter (valid and invalid values), singles (by ID and slug) for each
 * kind of fixture, linked posts and terms, then the writes. Reads come first so the writes do not change them.
 */
export function events(): Req[] {
  const out: Req[] = [];
  const both = (r: Omit<Req, 'as' | 'name'> & { name: string }, roles: Role[] = ['anon', 'admin']) => {
    for (const as of roles) out.push({ ...r, name: `${r.name}.${as}`, as });
  };

  // ---------------------------------------------------------------- event archive
  both({ name: 'events.list', path: '{E}/events' });
  const listParams: [string, (string | number | boolean | string[])[]][] = [
    ['page', [1, 2, 3, 99, 0, 'x']],
    ['per_page', [1, 2, 10, 50, 51, 0, 'x']],
    ['start_date', ['{Y1}-04-01', '{Y1}-04-01 20:00:00', 'now', 'not a date', '2020-01-01']],
    ['end_date', ['{Y1}-04-01', '{Y1}-12-31 23:59:59', 'garbage']],
    ['starts_before', ['{Y1}-04-01', '{Y1}-04-01 20:00:00', 'nope']],
    ['starts_after', ['{Y1}-04-01', '{Y1}-05-05 10:00:00', 'nope']],
    ['ends_before', ['{Y1}-04-01', '{Y1}-03-10 22:00:00', 'nope']],
    ['ends_after', ['{Y1}-04-01', '{Y1}-06-01', 'nope']],
    ['strict_dates', ['true', 'false', 'maybe']],
    ['search', ['concert', 'jazz', 'secret', 'stars', 'zzzz', '']],
    ['categories', ['{cat_music}', '{cat_jazz}', '{cat_talks}', 'music', '{cat_music},{cat_talks}', '999999', 'nosuch']],
    ['tags', ['{tag_outdoor}', '{tag_indoor}', 'outdoor', '999999']],
    ['venue', ['{ve_hall}', '{ve_park}', '{ve_hall},{ve_park}', '999999', 'x']],
    ['organizer', ['{org_ada}', '{org_bob}', '999999']],
    ['featured', ['true', 'false', '1', 'x']],
    ['status', ['publish', 'draft', 'trash', 'any', 'bogus']],
    ['geoloc', ['true', 'false']],
    ['geoloc_lat', ['58.37']],
    ['include', ['{ev_concert}', '{ev_concert},{ev_jazz}', '{ev_draft}', '999999', 'x']],
    ['post_parent', ['0', '{ev_concert}']],
    ['ticketed', ['true', 'false', 'x']],
  ];
  for (const [p, values] of listParams) {
    values.forEach((v, i) => both({ name: `events.list.${p}.${i}`, path: '{E}/events', query: { [p]: v as string } }));
  }
  both({ name: 'events.list.geoloc_both', path: '{E}/events', query: { geoloc_lat: '58.37', geoloc_lng: '26.72' } });
  both({ name: 'events.list.categories_array', path: '{E}/events', query: { categories: ['{cat_music}', '{cat_talks}'] } });
  both({
    name: 'events.list.strict_window',
    path: '{E}/events',
    query: { start_date: '{Y1}-04-01 19:00:00', end_date: '{Y1}-04-01 21:00:00', strict_dates: 'true' },
  });
  both({ name: 'events.list.window', path: '{E}/events', query: { start_date: '{Y1}-03-01', end_date: '{Y1}-04-30', per_page: 10 } });
  both({ name: 'events.list.page2', path: '{E}/events', query: { per_page: 2, page: 2 } });
  both({ name: 'events.list.last_page', path: '{E}/events', query: { per_page: 2, page: 3 } });
  both({ name: 'events.list.combo', path: '{E}/events', query: { categories: '{cat_music}', venue: '{ve_hall}', search: 'concert' } });
  both({ name: 'events.list.translation_language', path: '{E}/events', query: { translation_language: 'en' } });

  // ---------------------------------------------------------------- single events
  for (const sym of ['ev_concert', 'ev_jazz', 'ev_talk', 'ev_allday', 'ev_secret', 'ev_draft', 'ev_trash']) {
    both({ name: `events.get.${sym}`, path: `{E}/events/{${sym}}` });
  }
  both({ name: 'events.get.secret.password', path: '{E}/events/{ev_secret}', query: { password: 'sesame' } });
  both({ name: 'events.get.secret.wrong_password', path: '{E}/events/{ev_secret}', query: { password: 'nope' } });
  both({ name: 'events.get.unknown', path: '{E}/events/999999' });
  both({ name: 'events.get.venue_id', path: '{E}/events/{ve_hall}' });
  both({ name: 'events.get.ticket_id', path: '{E}/events/{tk_ga}' });
  both({ name: 'events.get.zero', path: '{E}/events/0' });
  both({ name: 'events.get.nonnumeric', path: '{E}/events/abc' });
  for (const slug of ['spring-concert', 'jazz-night', 'secret-gathering', 'draft-plans', 'no-such-event']) {
    both({ name: `events.by_slug.${slug}`, path: `{E}/events/by-slug/${slug}` });
  }

  // ---------------------------------------------------------------- venues and organizers
  for (const [kind, a, b, slugA] of [
    ['venues', 've_hall', 've_park', 'town-hall'],
    ['organizers', 'org_ada', 'org_bob', 'ada-events'],
  ] as const) {
    both({ name: `${kind}.list`, path: `{E}/${kind}` });
    const params: [string, string[]][] = [
      ['page', ['1', '2', '99', '0', 'x']],
      ['per_page', ['1', '10', '51', '0']],
      ['search', [kind === 'venues' ? 'town' : 'ada', 'tartu', 'zzzz']],
      ['event', ['{ev_concert}', '{ev_talk}', '999999', 'x']],
      ['has_events', ['true', 'false', '1']],
      ['only_with_upcoming', ['true', 'false']],
      ['status', ['publish', 'draft', 'any', 'bogus']],
    ];
    for (const [p, values] of params) values.forEach((v, i) => both({ name: `${kind}.list.${p}.${i}`, path: `{E}/${kind}`, query: { [p]: v } }));
    both({ name: `${kind}.get.a`, path: `{E}/${kind}/{${a}}` });
    both({ name: `${kind}.get.b`, path: `{E}/${kind}/{${b}}` });
    both({ name: `${kind}.get.unknown`, path: `{E}/${kind}/999999` });
    both({ name: `${kind}.get.event_id`, path: `{E}/${kind}/{ev_concert}` });
    both({ name: `${kind}.by_slug`, path: `{E}/${kind}/by-slug/${slugA}` });
    both({ name: `${kind}.by_slug.unknown`, path: `{E}/${kind}/by-slug/no-such-thing` });
  }

  // ---------------------------------------------------------------- categories and tags
  for (const [kind, a, b] of [
    ['categories', 'cat_music', 'cat_jazz'],
    ['tags', 'tag_outdoor', 'tag_indoor'],
  ] as const) {
    both({ name: `${kind}.list`, path: `{E}/${kind}` });
    const params: [string, string[]][] = [
      ['page', ['1', '2', '99', '0']],
      ['per_page', ['1', '10', '100', '101', '0']],
      ['search', ['mus', 'out', 'zzz']],
      ['exclude', [`{${a}}`, `{${a}},{${b}}`]],
      ['include', [`{${a}}`, `{${a}},{${b}}`, '999999']],
      ['order', ['asc', 'desc', 'bogus']],
      ['orderby', ['name', 'id', 'slug', 'count', 'bogus']],
      ['hide_empty', ['true', 'false', '0']],
      ['post', ['{ev_concert}', '{ev_jazz}', 'x']],
      ['event', ['{ev_concert}', '{ev_talk}']],
      ['slug', [kind === 'categories' ? 'music' : 'outdoor', 'nosuch']],
    ];
    if (kind === 'categories') params.push(['parent', ['{cat_music}', '0', 'x']]);
    for (const [p, values] of params) values.forEach((v, i) => both({ name: `${kind}.list.${p}.${i}`, path: `{E}/${kind}`, query: { [p]: v } }));
    both({ name: `${kind}.list.all`, path: `{E}/${kind}`, query: { hide_empty: 'false', per_page: '50' } });
    both({ name: `${kind}.list.past_end`, path: `{E}/${kind}`, query: { hide_empty: 'false', per_page: '1', page: '99' } });
    both({ name: `${kind}.get.a`, path: `{E}/${kind}/{${a}}` });
    both({ name: `${kind}.get.b`, path: `{E}/${kind}/{${b}}` });
    both({ name: `${kind}.get.unknown`, path: `{E}/${kind}/999999` });
  }

  // ---------------------------------------------------------------- writes: validation and permission first
  const w = (name: string, method: string, path: string, json: unknown, as: Role = 'admin', extra: Partial<Req> = {}) =>
    out.push({ name: `events.write.${name}`, method, path, json, as, ...extra });
  w('create.anon', 'POST', '{E}/events', { title: 'Nope', start_date: '{Y1}-09-01 10:00:00', end_date: '{Y1}-09-01 11:00:00' }, 'anon');
  w('create.missing_all', 'POST', '{E}/events', {});
  w('create.missing_all.anon', 'POST', '{E}/events', {}, 'anon');
  w('create.missing_title', 'POST', '{E}/events', { start_date: '{Y1}-09-01 10:00:00', end_date: '{Y1}-09-01 11:00:00' });
  w('create.bad_dates', 'POST', '{E}/events', { title: 'Bad', start_date: 'nope', end_date: 'nope' });
  w('create.end_before_start', 'POST', '{E}/events', { title: 'Backwards', start_date: '{Y1}-09-02 10:00:00', end_date: '{Y1}-09-01 10:00:00' });
  w('create.bad_status', 'POST', '{E}/events', { title: 'S', start_date: '{Y1}-09-01 10:00:00', end_date: '{Y1}-09-01 11:00:00', status: 'bogus' });
  w('create.venue_event_id', 'POST', '{E}/events', {
    title: 'V',
    start_date: '{Y1}-09-01 10:00:00',
    end_date: '{Y1}-09-01 11:00:00',
    venue: { id: '{ev_concert}' },
  });
  w('create.venue_unknown', 'POST', '{E}/events', { title: 'V', start_date: '{Y1}-09-01 10:00:00', end_date: '{Y1}-09-01 11:00:00', venue: 999999 });
  w('create.organizer_object', 'POST', '{E}/events', {
    title: 'O',
    start_date: '{Y1}-09-01 10:00:00',
    end_date: '{Y1}-09-01 11:00:00',
    organizer: { organizer: 'Lone Org' },
  });
  w('create.bad_category', 'POST', '{E}/events', {
    title: 'C',
    start_date: '{Y1}-09-01 10:00:00',
    end_date: '{Y1}-09-01 11:00:00',
    categories: [999999],
  });
  w(
    'create.minimal',
    'POST',
    '{E}/events',
    { title: 'Minimal Meetup', start_date: '{Y1}-09-01 10:00:00', end_date: '{Y1}-09-01 11:00:00' },
    'admin',
    { save: 'new_minimal' },
  );
  w(
    'create.full',
    'POST',
    '{E}/events',
    {
      title: 'Autumn Fair',
      description: '<p>Stalls and food.</p>',
      excerpt: 'Stalls',
      start_date: '{Y1}-09-10 10:00:00',
      end_date: '{Y1}-09-10 18:00:00',
      timezone: 'Europe/Tallinn',
      cost: '5 - 15',
      website: 'https://example.com/fair',
      show_map: false,
      show_map_link: false,
      hide_from_listings: false,
      sticky: false,
      featured: false,
      categories: ['{cat_music}'],
      tags: ['{tag_outdoor}', '{tag_indoor}'],
      venue: { venue: 'Fair Grounds', city: 'Tartu' },
      organizer: [{ organizer: 'Fair Org', email: 'fair@example.com' }],
    },
    'admin',
    { save: 'new_fair' },
  );
  w('create.cost_free', 'POST', '{E}/events', {
    title: 'Free Walk',
    start_date: '{Y1}-09-11 10:00:00',
    end_date: '{Y1}-09-11 11:00:00',
    cost: 'Free',
  });
  w('update.title_only', 'PUT', '{E}/events/{new_fair}', { title: 'Autumn Fair (updated)' });
  out.push({ name: 'events.write.update.read_after', as: 'admin', path: '{E}/events/{new_fair}' });
  w('update.patch', 'PATCH', '{E}/events/{new_minimal}', { description: 'Now with a description', featured: true });
  w('update.post', 'POST', '{E}/events/{new_minimal}', { cost: '12' });
  w('update.bad_date', 'PUT', '{E}/events/{new_minimal}', { start_date: 'never' });
  w('update.anon', 'PUT', '{E}/events/{new_minimal}', { title: 'x' }, 'anon');
  w('update.unknown', 'PUT', '{E}/events/999999', { title: 'x' });
  w('update.by_slug', 'PATCH', '{E}/events/by-slug/minimal-meetup', { excerpt: 'by slug' });
  w('update.trashed', 'PUT', '{E}/events/{ev_trash}', { title: 'x' });
  w('delete.anon', 'DELETE', '{E}/events/{new_minimal}', undefined, 'anon');
  w('delete.unknown', 'DELETE', '{E}/events/999999', undefined);
  w('delete.first', 'DELETE', '{E}/events/{new_minimal}', undefined);
  w('delete.again', 'DELETE', '{E}/events/{new_minimal}', undefined);
  w('delete.by_slug', 'DELETE', '{E}/events/by-slug/free-walk', undefined);
  out.push({ name: 'events.write.get_trashed.anon', path: '{E}/events/{new_minimal}' });
  out.push({ name: 'events.write.get_trashed.admin', as: 'admin', path: '{E}/events/{new_minimal}' });

  for (const [kind, field, extra] of [
    ['venues', 'venue', { city: 'Tartu', address: '2 Side St' }],
    ['organizers', 'organizer', { email: 'org@example.com', phone: '+372 1' }],
  ] as const) {
    w(`${kind}.create.anon`, 'POST', `{E}/${kind}`, { [field]: 'X' }, 'anon');
    w(`${kind}.create.missing`, 'POST', `{E}/${kind}`, {});
    w(`${kind}.create`, 'POST', `{E}/${kind}`, { [field]: `New ${field}`, description: 'desc', ...extra }, 'admin', { save: `new_${field}` });
    w(`${kind}.create.duplicate`, 'POST', `{E}/${kind}`, { [field]: `New ${field}` });
    w(`${kind}.update`, 'PUT', `{E}/${kind}/{new_${field}}`, { description: 'changed' });
    w(`${kind}.update.patch_slug`, 'PATCH', `{E}/${kind}/by-slug/new-${field}`, { phone: '+372 2' });
    w(`${kind}.update.unknown`, 'PUT', `{E}/${kind}/999999`, { description: 'x' });
    w(`${kind}.delete`, 'DELETE', `{E}/${kind}/{new_${field}}`, undefined);
    w(`${kind}.delete.again`, 'DELETE', `{E}/${kind}/{new_${field}}`, undefined);
    out.push({ name: `events.write.${kind}.get_trashed.anon`, path: `{E}/${kind}/{new_${field}}` });
  }
  w('organizers.create.bad_email', 'POST', '{E}/organizers', { organizer: 'Mailless', email: 'nope' });

  for (const kind of ['categories', 'tags'] as const) {
    const sym = `new_${kind}`;
    w(`${kind}.create.anon`, 'POST', `{E}/${kind}`, { name: 'X' }, 'anon');
    w(`${kind}.create.missing`, 'POST', `{E}/${kind}`, {});
    w(`${kind}.create`, 'POST', `{E}/${kind}`, { name: `Fresh ${kind}`, description: 'new one' }, 'admin', {
      save: `${kind === 'categories' ? 'cat' : 'tag'}_fresh`,
    });
    w(`${kind}.create.duplicate`, 'POST', `{E}/${kind}`, { name: `Fresh ${kind}` });
    w(`${kind}.update`, 'PUT', `{E}/${kind}/{${kind === 'categories' ? 'cat' : 'tag'}_fresh}`, { description: 'changed' });
    w(`${kind}.update.unknown`, 'PUT', `{E}/${kind}/999999`, { name: 'x' });
    w(`${kind}.delete`, 'DELETE', `{E}/${kind}/{${kind === 'categories' ? 'cat' : 'tag'}_fresh}`, undefined);
    w(`${kind}.delete.again`, 'DELETE', `{E}/${kind}/{${kind === 'categories' ? 'cat' : 'tag'}_fresh}`, undefined);
    void sym;
  }
  w('categories.create.child', 'POST', '{E}/categories', { name: 'Blues', parent: '{cat_music}' });
  w('categories.create.bad_parent', 'POST', '{E}/categories', { name: 'Orphan', parent: 999999 });

  // Namespace index and doc.
  both({ name: 'events.ns_index', path: '{E}' });
  both({ name: 'events.doc', path: '{E}/doc' });
  return out;
}
