"""What only a reviewer may read of a stored task: the strings the access tests (browser walk, role matrix) look for."""

from __future__ import annotations


def hidden_values(task) -> list[str]:
    """Strings only a reviewer may read for this task: the rule's family, words and exact parameters, the answers."""
    from tasks_app.tasks import bundle_files

    rule = bundle_files.read_json(task.bundle_dir, "private/rule.json")
    values = [task.rule_family, rule["description"][:40]]

    def exact_numbers(node):
        # The rule's thresholds at full precision (the description rounds them): they appear nowhere public.
        if isinstance(node, float) and len(repr(node)) >= 7:
            yield repr(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key != "description":
                    yield from exact_numbers(value)
        elif isinstance(node, list):
            for value in node:
                yield from exact_numbers(value)

    values += list(exact_numbers(rule))[:6]
    answers = bundle_files.read_text(task.bundle_dir, "private/answers.csv").splitlines()
    values.append("\n".join(answers[1:4]))  # three answer rows in a row, as the reviewer's preview shows them
    return [value for value in values if value and value.strip()]
