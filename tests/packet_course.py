"""A small curriculum of our own for the study-packet tests: two phases, four lessons, with
prerequisites (one naming a lesson that is not there), code blocks, a diagram, Further Reading,
warning sections (one empty), quiz banks with explanations, a glossary, a lesson without
exercises and a section title carrying a terminal escape."""

from __future__ import annotations

import json
from pathlib import Path

ESCAPE = "\x1b[31m"

LESSONS: dict[str, str] = {
    "01-foundations/01-counting": """# Counting Things

> Every statistic starts with a count.

**Type:** Learn
**Language:** Python
**Prerequisites:** None
**Time:** ~20 minutes

## Learning Objectives

- Count distinct values in a list with a dictionary
- Read a frequency table

## The Problem

Before any summary, you need to know how often each value occurs in a column.

## The Concept

### Frequency tables

A frequency table maps each distinct value to the number of times it occurs. It is the first
summary anyone makes of a fresh column of data.

## Build It

### Step 1: Count with a dictionary

Walk the list once and add one to the entry of each value.

```python
def counts(values):
    table = {}
    for value in values:
        table[value] = table.get(value, 0) + 1
    return table
```

## Exercises

1. Count the letters of a word.

## Key Terms

| Term | Meaning |
|---|---|
| Frequency table | value -> count |

## Further Reading

- [Counting in Python](https://example.org/counting) - the standard library
- [Tallies](https://example.org/tallies)
""",
    "01-foundations/02-averages": f"""# Averages and Spread

> The mean tells you where, the spread tells you how sure.

**Type:** Build
**Languages:** Python
**Prerequisites:** Phase 1, Lesson 01 (Counting)

## Learning Objectives

- Compute the mean and the median of a sample
- Explain why the variance squares its deviations

## The Problem

A single number that summarises a sample hides how much the values disagree.

## The Concept

The mean adds the values and divides by how many there are. The median is the middle value once
the sample is sorted.

```mermaid
graph LR; sample --> mean
```

### Deriving the variance

The variance averages the squared deviations from the mean, so signs cannot cancel out.

### Outliers {ESCAPE}matter

One extreme value moves the mean a long way but the median hardly at all.

## Build It

### Step 1: The mean

```python
def mean(values):
    return sum(values) / len(values)
```

## Common Mistakes

### Dividing by the wrong count

The sample variance divides by n - 1, not n, when it estimates the population variance.

### Averaging averages

The mean of group means is not the overall mean unless the groups have the same size.

## Exercises

1. Compute the median of an even-sized sample.

## Further Reading

- [Variance explained](https://example.org/variance)
""",
    "02-models/01-j2-return-mapping": """# J² Return Mapping

> Return to the yield surface along the shortest path.

**Type:** Learn
**Prerequisites:** Phase 1, Lessons 01-02

## Learning Objectives

- Describe the j² return mapping step

## The Problem

A trial stress outside the yield surface must be brought back onto it.

## The Concept

The return mapping scales the deviatoric stress back to the yield surface in one step.

## Build It

### Step 1: Scale back

```python
def scale(stress, factor):
    return [s * factor for s in stress]
```
""",
    "02-models/02-regression": """# Regression Basics

> Fit a line, then ask how wrong it is.

**Type:** Build
**Prerequisites:** Phase 1, Lesson 02; Phase 9, Lesson 01

## Learning Objectives

- Fit a least-squares line

## The Problem

Two measured quantities move together and you want the rule that links them.

## The Concept

Least squares picks the line with the smallest sum of squared residuals.

## Build It

### Step 1: Slope

```python
def slope(xs, ys):
    return 0.0
```

## Pitfalls

## Exercises

1. Fit a line to three points.
""",
}

QUIZZES: dict[str, list[dict]] = {
    "01-foundations/01-counting": [
        {
            "stage": "pre",
            "question": "How many distinct values does [1, 1, 2] hold?",
            "options": ["1", "2", "3", "4"],
            "correct": 1,
            "explanation": "The values 1 and 2 are the distinct ones.",
        },
        {
            "stage": "post",
            "question": "What does a frequency table map each value to?",
            "options": ["its count", "its rank", "its square", "its index"],
            "correct": 0,
            "explanation": "Each distinct value maps to how often it occurs.",
        },
    ],
    "01-foundations/02-averages": [
        {
            "stage": "pre",
            "question": "Which value is the median of 3, 1, 2?",
            "options": ["1", "2", "3", "6"],
            "correct": 1,
            "explanation": "Sorted, the sample reads 1, 2, 3: the middle value is 2.",
        },
        {
            "stage": "post",
            "question": "Why does the variance square the deviations?",
            "options": [
                "So that signs cannot cancel out when they are added up",
                "To make it faster",
                "Because n is even",
                "No reason",
            ],
            "correct": 0,
            "explanation": "",
        },
    ],
    "02-models/01-j2-return-mapping": [],
    "02-models/02-regression": [
        {
            "stage": "post",
            "question": "What does least squares minimise?",
            "options": [
                "the sum of squared residuals",
                "the largest residual",
                "the number of points",
                "the slope",
            ],
            "correct": 0,
            "explanation": "It minimises the sum of squared residuals.",
        },
    ],
}

GLOSSARY = """# Glossary

### Variance
- **What it actually means:** The mean squared deviation of values from their mean.

### Median
- **What it actually means:** The middle value of a sorted sample.

### Frequency Table
- **What it actually means:** A map from each distinct value to its count.
"""


def write_packet_course(root: Path) -> Path:
    for rel, text in LESSONS.items():
        folder = root / "phases" / rel
        (folder / "docs").mkdir(parents=True, exist_ok=True)
        (folder / "docs" / "en.md").write_text(text, encoding="utf-8")
        (folder / "quiz.json").write_text(
            json.dumps({"questions": QUIZZES[rel]}, indent=2), encoding="utf-8"
        )
    (root / "phases" / "01-foundations" / "README.md").write_text("# Foundations\n")
    (root / "phases" / "02-models" / "README.md").write_text("# Models\n")
    (root / "glossary").mkdir(exist_ok=True)
    (root / "glossary" / "terms.md").write_text(GLOSSARY, encoding="utf-8")
    (root / "README.md").write_text("# Packet test course\n", encoding="utf-8")
    return root
