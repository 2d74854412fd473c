import type { Ctx } from '../../http/context.ts';
import { can } from '../../http/context.ts';
import { invalidParam } from '../../http/errors.ts';

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
