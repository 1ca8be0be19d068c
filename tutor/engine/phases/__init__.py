"""The lesson's phases, in order: prior → probe (with its results) → plan → teach → quiz →
end. Each is a small generator over the lesson's context (tutor.engine.context)."""
