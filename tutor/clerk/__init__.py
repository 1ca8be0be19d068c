"""The Clerk: a finished lesson's outcome (a pending ingest) into the learner's long-term records,
through the `review` gate, all or nothing, idempotently."""
