import type { Req, Role } from '../lib/types.ts';

/**
 * What WordPress core gives every route: the site index, discovery, `?rest_route=`, global parameters (`_fields`,
 * `_envelope`, `_method`, `_jsonp`, `_pretty`, `context`), OPTIONS and HEAD, bodies (form, JSON, multipart,
 * malformed), batch/v1 and oembed/1.0.
 */
export function core(): Req[] {
  const out: Req[] = [];
  const both = (r: Omit<Req, 'as'>, roles: Role[] = ['anon', 'admin']) => {
    for (const as of roles) out.push({ ...r, name: `${r.name}.${as}`, as });
  };

  // ---------------------------------------------------------------- index and discovery
  both({ name: 'core.index', path: '' });
  both({ name: 'core.index.context_help', path: '', query: { context: 'help' } });
  both({ name: 'core.discovery.get', path: '/' });
  out.push({ name: 'core.discovery.head', method: 'HEAD', path: '/' });
  out.push({ name: 'core.index.rest_route', path: '', restRoute: true });
  out.push({ name: 'core.ns.unknown', path: 'nosuch/v1' });
  out.push({ name: 'core.route.unknown', path: '{E}/nosuch' });
  out.push({ name: 'core.oembed.ns', path: 'oembed/1.0' });
  out.push({ name: 'core.batch.ns', path: 'batch/v1' });

  // ---------------------------------------------------------------- credentials and CORS
  const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
  out.push({ name: 'core.auth.unknown_user', path: '{E}/events', headers: { authorization: basic('nosuchuser', 'abcd efgh ijkl mnop qrst uvwx') } });
  out.push({ name: 'core.auth.wrong_password', path: '{E}/events', headers: { authorization: basic('admin', 'abcd efgh ijkl mnop qrst uvwx') } });
  out.push({ name: 'core.cors.origin', path: '{E}/events', headers: { origin: 'https://elsewhere.example' } });
  out.push({
    name: 'core.cors.preflight',
    method: 'OPTIONS',
    path: '{E}/events',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
  });

  // ---------------------------------------------------------------- URL forms
  out.push({ name: 'core.url.rest_route.events', path: '{E}/events', restRoute: true });
  out.push({ name: 'core.url.rest_route.single', path: '{E}/events/{ev_concert}', restRoute: true });
  out.push({ name: 'core.url.rest_route.tickets', path: '{T}/tickets', restRoute: true, query: { per_page: '2' } });
  out.push({ name: 'core.url.trailing_slash', path: '{E}/events/' });
  out.push({ name: 'core.url.trailing_slash.single', path: '{E}/events/{ev_concert}/' });
  out.push({ name: 'core.url.upper_case', path: '{E}/EVENTS' });
  out.push({ name: 'core.url.upper_case.tickets', path: '{T}/Tickets' });

  // ---------------------------------------------------------------- methods
  for (const [n, p] of [
    ['events', '{E}/events'],
    ['event', '{E}/events/{ev_concert}'],
    ['venues', '{E}/venues'],
    ['venue', '{E}/venues/{ve_hall}'],
    ['categories', '{E}/categories'],
    ['tickets', '{T}/tickets'],
    ['ticket', '{T}/tickets/{tk_ga}'],
    ['attendees', '{T}/attendees'],
    ['attendee', '{T}/attendees/{at_grace}'],
    ['cart', '{T}/cart'],
    ['qr', '{T}/qr'],
    ['batch', 'batch/v1'],
    ['oembed', 'oembed/1.0/embed'],
  ] as const) {
    out.push({ name: `core.options.${n}`, method: 'OPTIONS', path: p });
    out.push({ name: `core.head.${n}`, method: 'HEAD', path: p });
  }
  out.push({ name: 'core.method.delete_collection', method: 'DELETE', path: '{E}/events', as: 'admin' });
  out.push({ name: 'core.method.put_collection', method: 'PUT', path: '{T}/tickets', as: 'admin', json: {} });
  out.push({ name: 'core.method.patch_qr', method: 'PATCH', path: '{T}/qr', as: 'admin', json: {} });
  out.push({ name: 'core.method.delete_attendee', method: 'DELETE', path: '{T}/attendees/{at_grace}', as: 'admin' });
  out.push({ name: 'core.method.get_batch', path: 'batch/v1' });
  out.push({ name: 'core.method._method_get_delete', path: '{E}/events/{ev_allday}', query: { _method: 'DELETE' }, as: 'admin' });
  out.push({
    name: 'core.method._method_post_put',
    method: 'POST',
    path: '{E}/events/{ev_allday}',
    query: { _method: 'PUT' },
    json: { excerpt: 'via _method' },
    as: 'admin',
  });
  out.push({
    name: 'core.method.override_header_post',
    method: 'POST',
    path: '{E}/events/{ev_allday}',
    headers: { 'X-HTTP-Method-Override': 'PATCH' },
    json: { excerpt: 'via header' },
    as: 'admin',
  });
  out.push({ name: 'core.method._method_post_get', method: 'POST', path: '{E}/events', query: { _method: 'GET' } });

  // ---------------------------------------------------------------- _fields, _envelope, _jsonp, _pretty, context
  for (const [n, p, f] of [
    ['events', '{E}/events', 'total,total_pages'],
    ['events.nested', '{E}/events', 'events.id,events.title'],
    ['events.top', '{E}/events', 'events'],
    ['event', '{E}/events/{ev_concert}', 'id,title,venue.venue'],
    ['event.unknown_field', '{E}/events/{ev_concert}', 'nosuch'],
    ['event.error', '{E}/events/999999', 'id'],
    ['venues', '{E}/venues', 'venues.id'],
    ['categories', '{E}/categories', 'categories,total'],
    ['ticket', '{T}/tickets/{tk_ga}', 'id,title,cost'],
    ['tickets', '{T}/tickets', 'tickets.id,total'],
    ['attendees', '{T}/attendees', 'total,attendees'],
    ['index', '', 'name,namespaces'],
  ] as const) {
    both({ name: `core.fields.${n}`, path: p, query: { _fields: f } });
  }
  for (const [n, p, q] of [
    ['events', '{E}/events', {}],
    ['event', '{E}/events/{ev_concert}', {}],
    ['event.error', '{E}/events/999999', {}],
    ['events.past_end', '{E}/events', { page: '99' }],
    ['tickets', '{T}/tickets', {}],
    ['tickets.past_end', '{T}/tickets', { page: '99' }],
    ['attendees', '{T}/attendees', {}],
    ['categories', '{E}/categories', { hide_empty: 'false' }],
    ['venues', '{E}/venues', {}],
    ['index', '', {}],
    ['no_route', '{E}/nosuch', {}],
    ['with_fields', '{E}/events', { _fields: 'total' }],
  ] as const) {
    both({ name: `core.envelope.${n}`, path: p, query: { _envelope: '1', ...q } });
  }
  both({ name: 'core.envelope.create_error', method: 'POST', path: '{E}/events', query: { _envelope: '' }, json: {} });
  both({ name: 'core.jsonp.events', path: '{E}/events', query: { _jsonp: 'cb' } });
  both({ name: 'core.jsonp.bad', path: '{E}/events', query: { _jsonp: 'not valid!' } });
  both({ name: 'core.pretty.event', path: '{E}/events/{ev_concert}', query: { _pretty: '1' } });
  both({ name: 'core.context.edit.event', path: '{E}/events/{ev_concert}', query: { context: 'edit' } });
  both({ name: 'core.context.embed.category', path: '{E}/categories/{cat_music}', query: { context: 'embed' } });
  both({ name: 'core.embed.events', path: '{E}/events', query: { _embed: '1' } });

  // ---------------------------------------------------------------- bodies
  out.push({
    name: 'core.body.malformed_json',
    method: 'POST',
    path: '{E}/events',
    as: 'admin',
    raw: { type: 'application/json', body: '{"title":' },
  });
  out.push({ name: 'core.body.malformed_json.anon', method: 'POST', path: '{E}/events', raw: { type: 'application/json', body: '{"title":' } });
  out.push({
    name: 'core.body.form.event_create',
    method: 'POST',
    path: '{E}/events',
    as: 'admin',
    form: { title: 'Form Event', start_date: '{Y1}-10-01 10:00:00', end_date: '{Y1}-10-01 11:00:00', categories: ['{cat_talks}'] },
  });
  const boundary = '----compatboundary7MA4YWxk';
  const mp = (fields: Record<string, string>) =>
    `${Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('')}--${boundary}--\r\n`;
  out.push({
    name: 'core.body.multipart.event_create',
    method: 'POST',
    path: '{E}/events',
    as: 'admin',
    raw: {
      type: `multipart/form-data; boundary=${boundary}`,
      body: mp({ title: 'Multipart Event', start_date: '{Y1}-10-02 10:00:00', end_date: '{Y1}-10-02 11:00:00' }),
    },
  });
  out.push({
    name: 'core.body.multipart.venue_create',
    method: 'POST',
    path: '{E}/venues',
    as: 'admin',
    raw: { type: `multipart/form-data; boundary=${boundary}`, body: mp({ venue: 'Multipart Hall', city: 'Tartu' }) },
  });
  out.push({
    name: 'core.body.multipart.missing',
    method: 'POST',
    path: '{E}/events',
    as: 'admin',
    raw: { type: `multipart/form-data; boundary=${boundary}`, body: mp({ description: 'no title' }) },
  });
  out.push({
    name: 'core.body.multipart.attendee',
    method: 'POST',
    path: '{T}/attendees',
    raw: {
      type: `multipart/form-data; boundary=${boundary}`,
      body: mp({ api_key: '{apikey}', ticket_id: '{tk_jazz}', full_name: 'Multi Part', email: 'multi@example.com' }),
    },
  });
  out.push({ name: 'core.body.text_plain', method: 'POST', path: '{E}/categories', as: 'admin', raw: { type: 'text/plain', body: 'name=Plain' } });

  // ---------------------------------------------------------------- batch/v1
  const b = (name: string, json: unknown, as: Role = 'admin', extra: Partial<Req> = {}) =>
    out.push({ name: `core.batch.${name}`, method: 'POST', path: 'batch/v1', json, as, ...extra });
  b('missing', {});
  b('not_array', { requests: 'x' });
  b('empty', { requests: [] });
  b('too_many', { requests: Array.from({ length: 26 }, () => ({ path: '/{E}/tags', body: { name: 'x' } })) });
  b('bad_validation', { validation: 'bogus', requests: [{ path: '/{E}/tags', body: { name: 'x' } }] });
  b('get_item', { requests: [{ method: 'GET', path: '/{E}/events' }] });
  b('unknown_route', { requests: [{ path: '/nosuch/v1/thing', body: {} }] });
  b('no_path', { requests: [{ body: {} }] });
  b('evt_write', { requests: [{ path: '/{E}/tags', body: { name: 'Batch tag' } }] });
  b('evt_write.anon', { requests: [{ path: '/{E}/tags', body: { name: 'Batch tag anon' } }] }, 'anon');
  b('evt_two', {
    requests: [
      { path: '/{E}/tags', body: { name: 'Batch two A' } },
      { method: 'PUT', path: '/{E}/events/{ev_allday}', body: { excerpt: 'batched' } },
    ],
  });
  b('require_all', {
    validation: 'require-all-validate',
    requests: [
      { path: '/{E}/tags', body: { name: 'Batch RA' } },
      { path: '/{E}/events', body: {} },
    ],
  });
  b('checkin', { requests: [{ method: 'PUT', path: '/{T}/attendees/{at_barbara}', body: { check_in: true } }] });
  b('delete_item', { requests: [{ method: 'DELETE', path: '/{E}/events/999999' }] });
  b('headers_item', { requests: [{ path: '/{E}/categories', body: { name: 'Hdr' }, headers: { 'X-Test': 'a' } }] });
  b('bad_method', { requests: [{ method: 'TRACE', path: '/{E}/tags', body: {} }] });
  b('rest_route', { requests: [{ path: '/{E}/tags', body: { name: 'rr' } }] }, 'admin', { restRoute: true });
  b('envelope', { requests: [{ path: '/{E}/tags', body: { name: 'env' } }] }, 'admin', { query: { _envelope: '1' } });
  b('form_body', undefined, 'admin', { json: undefined, form: { requests: [{ path: '/{E}/tags', body: { name: 'form batch' } }] } });

  // ---------------------------------------------------------------- oembed/1.0
  const o = (name: string, query: Record<string, string>, as: Role = 'anon') =>
    out.push({ name: `core.oembed.${name}`, path: 'oembed/1.0/embed', query, as });
  o('missing', {});
  o('event', { url: '{base}/event/spring-concert/' });
  o('event.admin', { url: '{base}/event/spring-concert/' }, 'admin');
  o('event.xml', { url: '{base}/event/spring-concert/', format: 'xml' });
  o('event.bad_format', { url: '{base}/event/spring-concert/', format: 'yaml' });
  o('event.maxwidth', { url: '{base}/event/spring-concert/', maxwidth: '300' });
  o('event.maxwidth_small', { url: '{base}/event/spring-concert/', maxwidth: '10' });
  o('event.maxwidth_bad', { url: '{base}/event/spring-concert/', maxwidth: 'x' });
  o('event.by_id', { url: '{base}/?p={ev_concert}' });
  o('event.secret', { url: '{base}/event/secret-gathering/' });
  o('event.draft', { url: '{base}/?p={ev_draft}' });
  o('event.draft.admin', { url: '{base}/?p={ev_draft}' }, 'admin');
  o('event.trash', { url: '{base}/?p={ev_trash}' });
  o('venue', { url: '{base}/venue/town-hall/' });
  o('organizer', { url: '{base}/organizer/ada-events/' });
  o('unknown', { url: '{base}/event/no-such/' });
  o('foreign', { url: 'https://example.com/' });
  o('not_url', { url: 'not a url' });
  const px = (name: string, query: Record<string, string>, as: Role = 'anon') =>
    out.push({ name: `core.oembed.proxy.${name}`, path: 'oembed/1.0/proxy', query, as });
  px('anon', { url: '{base}/event/spring-concert/' });
  px('missing', {}, 'admin');
  px('bad_format', { url: '{base}/event/spring-concert/', format: 'yaml' }, 'admin');
  px('bad_maxwidth', { url: '{base}/event/spring-concert/', maxwidth: 'x' }, 'admin');
  px('bad_discover', { url: '{base}/event/spring-concert/', discover: 'maybe' }, 'admin');
  return out;
}
