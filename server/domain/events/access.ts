import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { forbidden, invalidParam } from '../../kernel/errors.ts';
import { isAdministrator, mayChangeAuthored } from '../../security/ownership.ts';

export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
export const ALL_STATUSES = [...WRITABLE_STATUSES, 'trash'] as const;

/** Drafts, private and protected content, manager-only fields. */
export const readsPrivate = (ctx: Ctx) => can(ctx, 'read_private_events');

/**
 * The `status` filter of the TEC archives: omitted means `publish` for the public and every status but trash
 * for those who read private content; the public may ask only for `publish`.
 */
export function statusFilter(ctx: Ctx, given: string[] | undefined, param = 'status'): string[] {
  const privateReader = readsPrivate(ctx);
  if (!given || given.length === 0) return privateReader ? [...WRITABLE_STATUSES] : ['publish'];
  const out = new Set<string>();
  for (const s of given.map((x) => x.toLowerCase())) {
    if (s === 'any') {
      for (const w of privateReader ? WRITABLE_STATUSES : (['publish'] as const)) out.add(w);
      continue;
    }
    if (!(ALL_STATUSES as readonly string[]).includes(s)) throw invalidParam(param);
    if (!privateReader && s !== 'publish') throw invalidParam(param);
    out.add(s);
  }
  return [...out];
}

/** Whether the caller may see a post of this status at all. */
export function visibleStatus(ctx: Ctx, status: string): boolean {
  return status === 'publish' || readsPrivate(ctx);
}

/**
 * The permission to change (edit, publish, trash, delete) something authored by `author`: an event, venue,
 * organizer or term. Organizers change only their own; administrators everything (CONTRACT section 3). Terms
 * made before terms had an author carry author 0, so only administrators change them. Called after the
 * write's parameters are checked, before anything is written (the original's order of checks).
 */
export function assertMayChange(ctx: Ctx, author: number): void {
  if (!mayChangeAuthored(ctx, author)) throw forbidden(ctx.caller.kind === 'anonymous');
}

/**
 * Only an administrator sets `author` to someone else (CONTRACT section 3): an organizer may name only itself,
 * on create and on update; any other user, or 0, is `403 rest_forbidden`. `author` is the validated value.
 */
export function assertMayAssignAuthor(ctx: Ctx, author: number | undefined): void {
  if (author === undefined || isAdministrator(ctx)) return;
  if (ctx.caller.kind === 'user' && author === ctx.caller.userId) return;
  throw forbidden(ctx.caller.kind === 'anonymous');
}
