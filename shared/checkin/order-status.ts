/**
 * Order statuses that allow a check-in. Event Tickets refuses check-in unless the order is complete
 * (`tec-et-attendee-invalid-check-in`); the server and the kiosk's offline rule both read this list.
 */
export const CHECKIN_ORDER_STATUSES: readonly string[] = ['completed'];

/** Whether an attendee whose order has this status may be checked in. A missing status never may. */
export function orderAllowsCheckin(orderStatus: string | null | undefined): boolean {
  return typeof orderStatus === 'string' && CHECKIN_ORDER_STATUSES.includes(orderStatus.toLowerCase());
}
