import { sha256Hex } from './sha256.ts';

/**
 * The one rule for storing a ticket's security code on a door device: only this hash is kept.
 *
 * The attendee ID is mixed in so equal codes on different attendees hash differently and a stolen cache
 * cannot be matched against a list of codes in one pass. Codes are compared case-insensitively and trimmed,
 * because keyboard-wedge scanners sometimes change case or add whitespace.
 */
export function hashSecurityCode(attendeeId: number, securityCode: string): string {
  return sha256Hex(`evt-sc:v1:${attendeeId}:${securityCode.trim().toLowerCase()}`);
}

/** Whether a scanned code matches a stored hash made by {@link hashSecurityCode}. */
export function securityCodeMatches(attendeeId: number, scannedCode: string, storedHash: string): boolean {
  return hashSecurityCode(attendeeId, scannedCode) === storedHash;
}
