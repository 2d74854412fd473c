import type { Req, Role } from '../lib/types.ts';

/** The tickets namespace: tickets, attendees, cart, QR, the ticket editor routes and attendee writes. */
export function tickets(): Req[] {
  const out: Req[] = [];
  const both = (r: Omit<Req, 'as'>, roles: Role[] = ['anon', 'admin']) => {
    for (const as of roles) out.push({ ...r, name: `${r.name}.${as}`, as });
  };

  // ---------------------------------------------------------------- ticket archive
  both({ name: 'tickets.list', path: '{T}/tickets' });
  const ticketParams: [string, string[]][] = [
    ['page', ['1', '2', '99', '0', 'x']],
    ['per_page', ['1', '2', '10', '100', '101', '0']],
    ['search', ['vip', 'admission', 'zzz']],
    ['offset', ['1', '0', 'x']],
    ['order', ['ASC', 'DESC', 'bogus']],
    ['orderby', ['id', 'title', 'slug', 'include', 'bogus']],
    ['is_available', ['true', 'false']],
    ['provider', ['tc', 'rsvp', 'tc,rsvp', 'bogus']],
    ['after', ['2020-01-01', '2099-01-01', 'nope']],
    ['before', ['2020-01-01', '2099-01-01']],
    ['include', ['{tk_ga}', '{tk_ga},{tk_rsvp}', '999999']],
    ['exclude', ['{tk_ga}']],
    ['include_post', ['{ev_concert}', '{ev_talk},{ev_jazz}', '999999']],
    ['exclude_post', ['{ev_concert}']],
    ['attendees_min', ['1']],
    ['attendees_max', ['1']],
    ['checkedin_min', ['1']],
    ['checkedin_max', ['0']],
    ['capacity_min', ['30']],
    ['capacity_max', ['60']],
    ['available_from', ['2020-01-01']],
    ['available_until', ['2099-01-01']],
    ['post_status', ['publish', 'draft', 'any']],
    ['status', ['publish', 'draft', 'any']],
    ['currency', ['USD', 'EUR', 'usd,eur']],
    ['attendee_information_available', ['true']],
  ];
  for (const [p, values] of ticketParams) values.forEach((v, i) => both({ name: `tickets.list.${p}.${i}`, path: '{T}/tickets', query: { [p]: v } }));
  both({ name: 'tickets.list.attendees_range', path: '{T}/tickets', query: { attendees_min: '1', attendees_max: '5' } });
  both({ name: 'tickets.list.capacity_range', path: '{T}/tickets', query: { capacity_min: '10', capacity_max: '60' } });
  both({ name: 'tickets.list.checkedin_range', path: '{T}/tickets', query: { checkedin_min: '1', checkedin_max: '2' } });
  both({ name: 'tickets.list.provider_array', path: '{T}/tickets', query: { provider: ['tc', 'rsvp'] } });
  both({ name: 'tickets.list.page2', path: '{T}/tickets', query: { per_page: '2', page: '2' } });

  // ---------------------------------------------------------------- single tickets
  for (const sym of ['tk_ga', 'tk_vip', 'tk_rsvp', 'tk_jazz']) both({ name: `tickets.get.${sym}`, path: `{T}/tickets/{${sym}}` });
  both({ name: 'tickets.get.unknown', path: '{T}/tickets/999999' });
  both({ name: 'tickets.get.event_id', path: '{T}/tickets/{ev_concert}' });
  both({ name: 'tickets.get.attendee_id', path: '{T}/tickets/{at_grace}' });
  both({ name: 'tickets.get.zero', path: '{T}/tickets/0' });

  // ---------------------------------------------------------------- attendee archive
  both({ name: 'attendees.list', path: '{T}/attendees' });
  const attendeeParams: [string, string[]][] = [
    ['page', ['1', '2', '99', '0']],
    ['per_page', ['1', '2', '10', '100', '101']],
    ['provider', ['tc', 'rsvp', 'bogus']],
    ['search', ['grace', 'zzz']],
    ['offset', ['1', 'x']],
    ['order', ['ASC', 'DESC', 'bogus']],
    ['orderby', ['id', 'date', 'title', 'slug', 'include', 'bogus']],
    ['post_id', ['{ev_concert}', '{ev_talk}', '999999', 'x']],
    ['ticket_id', ['{tk_ga}', '{tk_rsvp}', '999999']],
    ['after', ['2020-01-01', '2099-01-01']],
    ['before', ['2020-01-01', '2099-01-01']],
    ['include', ['{at_grace}', '{at_grace},{at_alan}']],
    ['exclude', ['{at_grace}']],
    ['price_min', ['20', 'x']],
    ['price_max', ['20']],
    ['include_post', ['{ev_concert}', '{ev_talk}']],
    ['exclude_post', ['{ev_concert}']],
    ['include_ticket', ['{tk_ga}', '{tk_ga},{tk_vip}']],
    ['exclude_ticket', ['{tk_ga}']],
    ['post_status', ['publish', 'any']],
    ['status', ['publish', 'any']],
    ['order_status', ['public', 'completed', 'any']],
    ['checkedin', ['true', 'false', 'x']],
    ['rsvp_going_status', ['yes', 'no']],
    ['attendee_information_available', ['true']],
    ['name', ['Grace', 'zzz']],
    ['email', ['alan@', 'example.com']],
  ];
  for (const [p, values] of attendeeParams)
    values.forEach((v, i) => both({ name: `attendees.list.${p}.${i}`, path: '{T}/attendees', query: { [p]: v } }));
  both({ name: 'attendees.list.api_key', path: '{T}/attendees', query: { api_key: '{apikey}' } }, ['anon']);

  // ---------------------------------------------------------------- single attendees
  for (const sym of ['at_grace', 'at_alan', 'at_edsger', 'at_barbara', 'at_ken'])
    both({ name: `attendees.get.${sym}`, path: `{T}/attendees/{${sym}}` });
  both({ name: 'attendees.get.unknown', path: '{T}/attendees/999999' });
  both({ name: 'attendees.get.ticket_id', path: '{T}/attendees/{tk_ga}' });
  both({ name: 'attendees.get.api_key', path: '{T}/attendees/{at_grace}', query: { api_key: '{apikey}' } }, ['anon']);

  // ---------------------------------------------------------------- cart
  both({ name: 'cart.get', path: '{T}/cart' });
  both({ name: 'cart.get.provider', path: '{T}/cart', query: { provider: 'tc' } });
  both({ name: 'cart.get.post', path: '{T}/cart', query: { provider: 'tc', post_id: '{ev_concert}' } });
  both({ name: 'cart.get.post_no_tickets', path: '{T}/cart', query: { provider: 'tc', post_id: '{ev_allday}' } });
  both({ name: 'cart.get.post_unknown', path: '{T}/cart', query: { post_id: '999999' } });
  both({ name: 'cart.post.missing', method: 'POST', path: '{T}/cart', json: {} });
  both({ name: 'cart.post.empty', method: 'POST', path: '{T}/cart', json: { provider: 'tc' } });
  both({
    name: 'cart.post.ticket',
    method: 'POST',
    path: '{T}/cart',
    json: { provider: 'tc', tickets: [{ ticket_id: '{tk_ga}', quantity: 2 }], post_id: '{ev_concert}' },
  });
  both({ name: 'cart.put.ticket', method: 'PUT', path: '{T}/cart', json: { provider: 'tc', tickets: [{ ticket_id: '{tk_vip}', quantity: 1 }] } });
  both({
    name: 'cart.post.too_many',
    method: 'POST',
    path: '{T}/cart',
    json: { provider: 'tc', tickets: [{ ticket_id: '{tk_vip}', quantity: 500 }] },
  });
  both({ name: 'cart.post.no_provider_bogus', method: 'POST', path: '{T}/cart', json: { provider: 'bogus', tickets: [] } });

  // ---------------------------------------------------------------- QR
  both({ name: 'qr.get.grace', path: '{T}/qr/{at_grace}' });
  both({ name: 'qr.get.alan', path: '{T}/qr/{at_alan}' });
  both({ name: 'qr.get.unknown', path: '{T}/qr/999999' });
  both({ name: 'qr.get.event', path: '{T}/qr/{ev_concert}' });
  both({ name: 'qr.checkin.missing', path: '{T}/qr' });
  both({ name: 'qr.checkin.missing_code', path: '{T}/qr', query: { api_key: '{apikey}', ticket_id: '{at_grace}' } });
  both({
    name: 'qr.checkin.bad_key',
    path: '{T}/qr',
    query: { api_key: 'random', ticket_id: '{at_grace}', security_code: '{code:at_grace}', event_id: '{ev_concert}' },
  });
  both({ name: 'qr.checkin.bad_code', path: '{T}/qr', query: { api_key: '{apikey}', ticket_id: '{at_grace}', security_code: 'wrong' } });
  both({ name: 'qr.checkin.unknown', path: '{T}/qr', query: { api_key: '{apikey}', ticket_id: '999999', security_code: 'abc' } });
  out.push({
    name: 'qr.checkin.ok',
    path: '{T}/qr',
    query: { api_key: '{apikey}', ticket_id: '{at_grace}', security_code: '{code:at_grace}', event_id: '{ev_concert}' },
  });
  out.push({
    name: 'qr.checkin.again',
    path: '{T}/qr',
    query: { api_key: '{apikey}', ticket_id: '{at_grace}', security_code: '{code:at_grace}', event_id: '{ev_concert}' },
  });
  out.push({ name: 'qr.checkin.rsvp', path: '{T}/qr', query: { api_key: '{apikey}', ticket_id: '{at_edsger}', security_code: '{code:at_edsger}' } });
  out.push({ name: 'qr.after.grace.admin', as: 'admin', path: '{T}/attendees/{at_grace}' });

  // ---------------------------------------------------------------- attendee writes
  const w = (name: string, method: string, path: string, json: unknown, as: Role = 'admin', extra: Partial<Req> = {}) =>
    out.push({ name: `attendees.write.${name}`, method, path, json, as, ...extra });
  w('create.anon', 'POST', '{T}/attendees', { ticket_id: '{tk_ga}', full_name: 'Anon', email: 'anon@example.com' }, 'anon');
  w('create.missing', 'POST', '{T}/attendees', {});
  w('create.missing.anon', 'POST', '{T}/attendees', {}, 'anon');
  w('create.bad_email', 'POST', '{T}/attendees', { ticket_id: '{tk_ga}', full_name: 'X', email: 'nope' });
  w('create.not_ticket', 'POST', '{T}/attendees', { ticket_id: '{ev_concert}', full_name: 'X', email: 'x@example.com' });
  w('create.bad_status', 'POST', '{T}/attendees', { ticket_id: '{tk_ga}', full_name: 'X', email: 'x@example.com', attendee_status: 'bogus' });
  w('create.ok', 'POST', '{T}/attendees', { ticket_id: '{tk_vip}', full_name: 'Margaret Hamilton', email: 'margaret@example.com' }, 'admin', {
    save: 'at_margaret',
  });
  w(
    'create.checked_in',
    'POST',
    '{T}/attendees',
    { ticket_id: '{tk_vip}', full_name: 'Linus T', email: 'linus@example.com', check_in: true },
    'admin',
    { save: 'at_linus' },
  );
  w(
    'create.rsvp',
    'POST',
    '{T}/attendees',
    { ticket_id: '{tk_rsvp}', full_name: 'Donald Knuth', email: 'don@example.com', attendee_status: 'yes' },
    'admin',
    { save: 'at_donald' },
  );
  w('create.api_key_form', 'POST', '{T}/attendees', undefined, 'anon', {
    form: { api_key: '{apikey}', ticket_id: '{tk_ga}', full_name: 'Door Guest', email: 'door@example.com' },
  });
  w('get.rsvp.anon', 'GET', '{T}/attendees/{at_donald}', undefined, 'anon');
  w('checkin', 'PUT', '{T}/attendees/{at_margaret}', { check_in: true });
  w('checkin.again', 'PUT', '{T}/attendees/{at_margaret}', { check_in: true });
  w('checkout', 'PATCH', '{T}/attendees/{at_margaret}', { check_in: false });
  w('update.post', 'POST', '{T}/attendees/{at_margaret}', { check_in: 'x' });
  w('update.anon', 'PUT', '{T}/attendees/{at_margaret}', { check_in: true }, 'anon');
  w('update.unknown', 'PUT', '{T}/attendees/999999', { check_in: true });
  w('update.status', 'PUT', '{T}/attendees/{at_margaret}', { attendee_status: 'bogus' });
  out.push({ name: 'attendees.write.list_after.admin', as: 'admin', path: '{T}/attendees', query: { per_page: '20' } });
  out.push({ name: 'attendees.write.list_after.anon', path: '{T}/attendees', query: { per_page: '20' } });

  // ---------------------------------------------------------------- ticket editor routes
  const t = (name: string, method: string, path: string, form: Record<string, unknown> | undefined, as: Role = 'admin', extra: Partial<Req> = {}) =>
    out.push({ name: `tickets.write.${name}`, method, path, form, as, ...extra });
  t('create.anon', 'POST', '{T}/tickets', { post_id: '{ev_jazz}', add_ticket_nonce: 'bad', provider: 'tc', name: 'X', price: '1' }, 'anon');
  t('create.bad_nonce', 'POST', '{T}/tickets', { post_id: '{ev_jazz}', add_ticket_nonce: 'bad', provider: 'tc', name: 'X', price: '1' });
  t('create.no_post', 'POST', '{T}/tickets', { add_ticket_nonce: '{nonce:add_ticket_nonce:ev_jazz}', provider: 'tc', name: 'X' });
  t('create.bad_provider', 'POST', '{T}/tickets', {
    post_id: '{ev_jazz}',
    add_ticket_nonce: '{nonce:add_ticket_nonce:ev_jazz}',
    provider: 'bogus',
    name: 'X',
  });
  t('create.bad_price', 'POST', '{T}/tickets', {
    post_id: '{ev_jazz}',
    add_ticket_nonce: '{nonce:add_ticket_nonce:ev_jazz}',
    provider: 'tc',
    name: 'X',
    price: '-5',
  });
  t(
    'create.ok',
    'POST',
    '{T}/tickets',
    {
      post_id: '{ev_jazz}',
      add_ticket_nonce: '{nonce:add_ticket_nonce:ev_jazz}',
      provider: 'tc',
      name: 'Balcony',
      description: 'Up high',
      price: '30',
      start_date: '{Y1}-01-01',
      start_time: '08:00:00',
      end_date: '{Y1}-03-31',
      end_time: '20:00:00',
      sku: 'BALC',
      ticket: { capacity: 40 },
    },
    'admin',
    { save: 'tk_balcony' },
  );
  t(
    'create.no_capacity',
    'POST',
    '{T}/tickets',
    { post_id: '{ev_allday}', add_ticket_nonce: '{nonce:add_ticket_nonce:ev_allday}', provider: 'tc', name: 'Door sale', price: '7' },
    'admin',
    { save: 'tk_door' },
  );
  out.push({
    name: 'tickets.write.no_capacity.attendee',
    as: 'admin',
    method: 'POST',
    path: '{T}/attendees',
    json: { ticket_id: '{tk_door}', full_name: 'Late Comer', email: 'late@example.com' },
  });
  out.push({ name: 'tickets.write.get_new.admin', as: 'admin', path: '{T}/tickets/{tk_balcony}' });
  t('create.json', 'POST', '{T}/tickets', undefined, 'admin', {
    json: { post_id: '{ev_jazz}', add_ticket_nonce: '{nonce:add_ticket_nonce:ev_jazz}', provider: 'tc', name: 'JSON ticket', price: '3' },
  });
  t('update.bad_nonce', 'PUT', '{T}/tickets/{tk_balcony}', { post_id: '{ev_jazz}', edit_ticket_nonce: 'bad', name: 'Y' });
  t('update.missing', 'PUT', '{T}/tickets/{tk_balcony}', { name: 'Y' });
  t('update.ok', 'PUT', '{T}/tickets/{tk_balcony}', {
    post_id: '{ev_jazz}',
    edit_ticket_nonce: '{nonce:edit_ticket_nonce:tk_balcony}',
    name: 'Balcony seats',
    price: '32',
    ticket: { capacity: 45 },
  });
  t('update.unknown', 'PUT', '{T}/tickets/999999', { post_id: '{ev_jazz}', edit_ticket_nonce: 'x', name: 'Y' });
  t('delete.missing', 'DELETE', '{T}/tickets/{tk_balcony}', {});
  t('delete.bad_nonce', 'DELETE', '{T}/tickets/{tk_balcony}', { post_id: '{ev_jazz}', remove_ticket_nonce: 'bad' });
  t('delete.ok', 'DELETE', '{T}/tickets/{tk_balcony}', { post_id: '{ev_jazz}', remove_ticket_nonce: '{nonce:remove_ticket_nonce:tk_balcony}' });
  out.push({ name: 'tickets.write.get_deleted.admin', as: 'admin', path: '{T}/tickets/{tk_balcony}' });

  both({ name: 'tickets.ns_index', path: '{T}' });
  both({ name: 'tickets.doc', path: '{T}/doc' });
  return out;
}
