-- PostgreSQL counts a ticket's places in a function planned for each ticket (migrations-pg/026: its cached plans
-- otherwise read every attendee for a new ticket). SQLite counts them with ticketStats, planned at each
-- statement: nothing changes here.
SELECT 1;
