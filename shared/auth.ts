import { z } from 'zod';

export const ROLES = ['administrator', 'organizer', 'door'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const CAPABILITIES = [
  /** Create, edit and trash events, venues, organizers and terms. */
  'edit_events',
  /** See drafts, private and password-protected content and manager-only fields of events. */
  'read_private_events',
  /** Event Tickets "manage access": attendee lists with private fields, attendee create and check-in. */
  'manage_attendees',
  /** Create, edit and delete tickets; read orders and check-in logs. */
  'edit_tickets',
  /** Forms, their fields and submissions. */
  'manage_forms',
  /** Site settings, users, keys, mail logs, analytics, security scanner, integrations. */
  'manage_options',
] as const;
export type Capability = (typeof CAPABILITIES)[number];
export type Permission = 'public' | 'authenticated' | Capability;

export const ROLE_CAPS: Record<Role, readonly Capability[]> = {
  administrator: CAPABILITIES,
  organizer: ['edit_events', 'read_private_events', 'manage_attendees', 'edit_tickets', 'manage_forms'],
  door: ['read_private_events', 'manage_attendees'],
};

export function roleCan(role: Role | null | undefined, cap: Capability): boolean {
  return role ? ROLE_CAPS[role].includes(cap) : false;
}
