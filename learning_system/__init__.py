"""The learner's world: curricula, the durable store, scheduling and records. No UI, no model."""
