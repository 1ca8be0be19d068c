"""The prior → probe → plan → teach loop as a state machine. No Textual here."""
