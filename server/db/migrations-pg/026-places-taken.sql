-- The places a ticket has taken (sold: completed orders; pending: unpaid orders whose hold has not lapsed at
-- `now_utc`), as a checkout and a cart write count them (repos/checkout.ts), in a function of its own whose
-- statement is planned at each call for the ticket it is given (plan_cache_mode = force_custom_plan).
--
-- Why: inside the checkout's statements the count was a join on `a.ticket_id = d.post_id`, planned once per
-- connection for any ticket with the column's average: `attendees` rows / distinct tickets. On a site whose
-- attendees were mostly one event's when statistics were last gathered (20,000 on one ticket in bench:scale,
-- and so on any site that opens sales for a new event after a large one), that average is every attendee, and
-- the cached plan read the whole table for each ticket of each cart write and each checkout: 8-11 ms a statement
-- in pg_stat_statements (auto_explain: a sequential scan of 20,000 rows to find none). Planned for the actual
-- ticket, the statistics' most common values say a new ticket has few attendees (its index) and a large one many
-- (a scan, the right plan for it). STABLE: it reads with the snapshot of the statement that calls it, which
-- starts after the checkout's locks were granted, as before.
CREATE FUNCTION evt_places_taken(ticket bigint, now_utc text, OUT sold bigint, OUT pending bigint)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $fn$
BEGIN
  SELECT SUM(CASE WHEN COALESCE(o.status, 'completed') = 'completed' AND COALESCE(a.rsvp_status, 'yes') <> 'no' THEN 1 ELSE 0 END),
         SUM(CASE WHEN o.status = 'pending' AND COALESCE(a.rsvp_status, 'yes') <> 'no' THEN 1 ELSE 0 END)
  INTO sold, pending
  FROM attendees a JOIN posts ap ON ap.id = a.post_id LEFT JOIN orders o ON o.post_id = a.order_id
  WHERE a.ticket_id = ticket AND ap.status <> 'trash' AND COALESCE(o.status, 'completed') IN ('completed', 'pending')
    AND (o.hold_until_utc IS NULL OR o.status <> 'pending' OR o.hold_until_utc > now_utc);
END
$fn$;
