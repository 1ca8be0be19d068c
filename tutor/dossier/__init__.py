"""Knowledge packs (issue 24): per lesson, a reviewed, fingerprinted dossier of atoms — must-know
facts, procedures, cases, common errors, the evidence a learner must show — each resting on
numbered units of the lesson's own source.

- `model.py`: the pack (`knowledge-pack/1`) and the two skills' replies;
- `units.py`: the lesson's source split into units with file and line ranges, its fingerprint;
- `checks.py`: coverage by construction, the pack assembled by the program;
- `build.py`: the two model calls (extract, review-and-correct) and the conditioned write;
- `status.py`: what `tutor dossier status` shows.

Named "dossier" so it is not confused with `tutor packet`'s study packets."""
