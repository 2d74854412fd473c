import { sha256Hex } from './sha256.ts';

/**
 * The one rule for storing a ticket's security code on a door device: only this hash is kept.
 *
 * The attendee ID is mixed in so equal codes on different attendees hash differently and a stolen cache
 * cannot be matched against a list of codes in one pass. Codes are compared case-insensitively and trimmed,
 * because keyboard-wedge scanners sometimes change case or add whitespace.
 */
export function hashSecurityCode(attendeeId: number, securityCode: string): string {
  return sha256Hex(securityCodeHashInput(attendeeId, securityCode));
}

/**
 * The text {@link hashSecurityCode} hashes (UTF-8): the server hashes the same text with node:crypto when it sends
 * a door device the hash instead of the code (the door snapshot).
 */
export function securityCodeHashInput(attendeeId: number, securityCode: string): string {
  return `evt-sc:v1:${attendeeId}:${securityCode.trim().toLowerCase()}`;
}

/** A hash as {@link hashSecurityCode} writes it. */
export const SECURITY_CODE_HASH = /^[0-9a-f]{64}$/;

/** Whether a scanned code matches a stored hash made by {@link hashSecurityCode}. */
export function securityCodeMatches(attendeeId: number, scannedCode: string, storedHash: string): boolean {
  return hashSecurityCode(attendeeId, scannedCode) === storedHash;
}
