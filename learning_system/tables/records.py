"""The Clerk's records: glossary terms, one learning record per lesson and one knowledge page
per concept. Each `put_*` replaces the row under its key."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from learning_system.tables import Table, marks

if TYPE_CHECKING:
    from learning_system.tables.rows import GlossaryRow, KnowledgePageRow, LearningRecordRow


class Records(Table):
    # glossary --------------------------------------------------------------------------------
    def glossary_term(self, term: str) -> GlossaryRow | None:
        rows = self.store.rows("SELECT * FROM glossary WHERE term = ?", (term,))
        return cast("GlossaryRow", rows[0]) if rows else None

    def put_glossary(self, row: GlossaryRow) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO glossary (term, definition, lesson_id) "
                "VALUES (:term, :definition, :lesson_id)",
                dict(row),
            )

    # learning records ------------------------------------------------------------------------
    def learning_record(self, lesson_id: str) -> LearningRecordRow | None:
        rows = self.store.rows("SELECT * FROM learning_records WHERE lesson_id = ?", (lesson_id,))
        return cast("LearningRecordRow", rows[0]) if rows else None

    def learning_records(self) -> list[LearningRecordRow]:
        """Every learning record, by lesson id."""
        rows = self.store.rows("SELECT * FROM learning_records ORDER BY lesson_id")
        return cast("list[LearningRecordRow]", rows)

    def put_learning_record(self, row: LearningRecordRow) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO learning_records (lesson_id, payload, created_at) "
                "VALUES (:lesson_id, :payload, :created_at)",
                dict(row),
            )

    # knowledge pages -------------------------------------------------------------------------
    def knowledge_page(self, concept_id: str) -> KnowledgePageRow | None:
        rows = self.store.rows("SELECT * FROM knowledge_pages WHERE concept_id = ?", (concept_id,))
        return cast("KnowledgePageRow", rows[0]) if rows else None

    def knowledge_pages(self, concept_ids: list[str] | None = None) -> list[KnowledgePageRow]:
        """Every knowledge page (or those of `concept_ids`), by concept id."""
        if concept_ids is None:
            rows = self.store.rows("SELECT * FROM knowledge_pages ORDER BY concept_id")
        else:
            rows = self.store.rows(
                f"SELECT * FROM knowledge_pages WHERE concept_id IN ({marks(concept_ids)}) "
                "ORDER BY concept_id",
                concept_ids,
            )
        return cast("list[KnowledgePageRow]", rows)

    def put_knowledge_page(self, row: KnowledgePageRow) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO knowledge_pages (concept_id, markdown, sources, "
                "updated_at) VALUES (:concept_id, :markdown, :sources, :updated_at)",
                dict(row),
            )
