import type { Ctx } from '../kernel/context.ts';
import { forbidden } from '../kernel/errors.ts';
import { postAuthorOf } from '../db/repos/posts.ts';

/**
 * Who may change what (CONTRACT section 3): an administrator changes everything; an organizer changes only the
 * events it authored (and their tickets, attendees and orders), and only the venues, organizers and terms it
 * authored; door users and keys change no content at all (their check-in rights are checked elsewhere).
 */
export function isAdministrator(ctx: Pick<Ctx, 'caller'>): boolean {
  return ctx.caller.kind === 'user' && ctx.caller.role === 'administrator';
}

/** Whether the caller may change a post (event, venue, organizer, ticket's event) whose author is `author`. */
export function mayChangeAuthored(ctx: Pick<Ctx, 'caller'>, author: number | null | undefined): boolean {
  if (isAdministrator(ctx)) return true;
  return ctx.caller.kind === 'user' && ctx.caller.role === 'organizer' && author !== null && author !== undefined && author === ctx.caller.userId;
}

/** The author of a post, or undefined when there is no such post. */
export async function postAuthor(ctx: Pick<Ctx, 'db'>, postId: number): Promise<number | undefined> {
  return (await postAuthorOf(ctx.db, postId)) ?? undefined;
}

/** Whether the caller may change event `eventId` and what hangs off it (tickets, attendees, orders). */
export async function mayChangeEvent(ctx: Pick<Ctx, 'caller' | 'db'>, eventId: number): Promise<boolean> {
  if (isAdministrator(ctx)) return true;
  return mayChangeAuthored(ctx, await postAuthor(ctx, eventId));
}

/** Throws the contract's `403 rest_forbidden` (401 for anonymous callers) unless the caller may change the event. */
export async function assertMayChangeEvent(ctx: Pick<Ctx, 'caller' | 'db'>, eventId: number): Promise<void> {
  if (!(await mayChangeEvent(ctx, eventId))) throw forbidden(ctx.caller.kind === 'anonymous');
}
