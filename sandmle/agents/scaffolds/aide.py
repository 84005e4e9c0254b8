"""AIDE (WecoAI/aideml): a solution tree grown by draft, improve and debug operators under the greedy policy, with
a memory of every good node, a data preview, and code that prints its validation metric."""

from __future__ import annotations

import random

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.preview import data_preview
from sandmle.agents.scaffolds.tree import (
    Node, ask_plan_and_code, execute_node, finish_with_best, greedy_choice, journal_memory, remaining, review,
    task_lower_is_better, tree_row,
)

SYSTEM = ("You are a Kaggle grandmaster attending a competition. REPLY FORMAT: aide\n"
          "Reply with a brief plan in natural language (3-5 sentences) followed by a single markdown code block "
          "(```python) that implements it and prints the evaluation metric; no other headings or text.")

INTRODUCTION = {
    "draft": "To win this competition, come up with an excellent and creative plan for a solution and implement it "
             "in Python. The task is described below.",
    "improve": "Below is a solution developed earlier. Improve it so that its (test time) performance goes up: "
               "first outline in a few sentences how, then implement the improvement on top of the previous solution.",
    "debug": "Your previous solution had a bug. Using the information below, revise it to fix the bug: an outline in "
             "natural language, then a single markdown code block with the fixed solution.",
}

SKETCH_GUIDELINE = {
    "draft": ["This first design should be simple, without ensembling or hyper-parameter optimisation.",
              "Take the Memory section into account: do not propose the same modelling solution, but keep the "
              "evaluation the same.",
              "Propose an evaluation metric that is reasonable for this task.", "Do not suggest EDA.",
              "The data is prepared and read-only in /public; nothing needs unzipping."],
    "improve": ["Describe briefly how the previous solution can be improved.",
                "Propose a single, specific, atomic improvement so that its effect can be measured.",
                "Take the Memory section into account.", "Do not suggest EDA."],
    "debug": ["Describe in 3-5 sentences how the issue in the previous implementation can be fixed.",
              "Do not suggest EDA."],
}


def implementation_guideline(context: EpisodeContext, k_fold: int) -> list[str]:
    lines = [
        "The code must implement the proposed solution and **print the value of the evaluation metric computed on a "
        "hold-out validation set**.",
        "It must be a single-file, self-contained Python program that runs as-is; skip no part of it.",
        "Reply with a single code block only.",
        f"Mind the running time: the program must finish within {context.step_timeout_s:g} seconds.",
        "All input data is in the /public directory.",
        "**Save the predictions on the unlabeled test data to /workdir/submission.csv, in the format the task "
        "describes.** This file is graded: do not forget it.",
        "Use /workdir for any temporary files.",
    ]
    if k_fold > 1:
        lines.append(f"Evaluate with {k_fold}-fold cross-validation when that suits the task.")
    return lines


def operator_prompt(context: EpisodeContext, operator: str, parent: Node | None, *, memory: str, preview: str,
                    status: str, k_fold: int) -> list[dict]:
    sections = [f"# Introduction\n{INTRODUCTION[operator]}", f"# Task description\n{context.description}"]
    if operator != "debug":
        sections.append(f"# Memory\n{memory}")
    if operator == "improve":
        sections.append(f"# Previous solution\n```python\n{parent.code}\n```")
    if operator == "debug":
        sections.append(f"# Buggy implementation\n```python\n{parent.code}\n```")
        sections.append(f"# Execution output\n```\n{parent.output[-3000:]}\n```")
    guideline = "\n".join(f"- {line}" for line in SKETCH_GUIDELINE[operator])
    implementation = "\n".join(f"- {line}" for line in implementation_guideline(context, k_fold))
    sections.append(f"# Instructions\n## Solution sketch guideline\n{guideline}\n\n## Implementation guideline\n"
                    f"{status}\n{implementation}\n\n## Environment\nnumpy, pandas, scikit-learn and scipy are "
                    "installed; nothing else can be installed.")
    if preview and operator != "improve":
        sections.append(f"# Data Overview\n{preview}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(sections)}]


def choose(nodes, rng, *, num_drafts, debug_prob, max_debug_depth, lower_is_better):
    """aideml's search policy (greedy_choice without crossover), as (operator, parent or None)."""
    operator, parents = greedy_choice(nodes, rng, num_drafts=num_drafts, debug_prob=debug_prob,
                                      max_debug_depth=max_debug_depth, lower_is_better=lower_is_better)
    return operator, (parents[0] if parents else None)


def run(context: EpisodeContext) -> str:
    options = context.options
    num_drafts, debug_prob = int(options.get("num_drafts", 5)), float(options.get("debug_prob", 0.5))
    max_debug_depth, k_fold = int(options.get("max_debug_depth", 3)), int(options.get("k_fold", 5))
    steps = int(options.get("steps", context.max_turns))
    preview = data_preview(context.task_dir / "public") if options.get("data_preview", True) else ""
    rng = random.Random(context.sampling.seed or 0)
    lower_is_better = task_lower_is_better(context)
    nodes: list[Node] = []
    termination = "max_turns"
    try:
        for step in range(steps):
            operator, parent = choose(nodes, rng, num_drafts=num_drafts, debug_prob=debug_prob,
                                      max_debug_depth=max_debug_depth, lower_is_better=lower_is_better)
            node = Node(node_id=len(nodes), operator=operator, parent=parent.node_id if parent else None,
                        debug_depth=(parent.debug_depth + 1) if operator == "debug" and parent else 0)
            messages = operator_prompt(context, operator, parent, memory=journal_memory(nodes), preview=preview,
                                       status=remaining(context, step, steps), k_fold=k_fold)
            try:
                reply, turn = ask_plan_and_code(context, messages, reply_format="aide", kind=operator)
                execute_node(context, node, reply.text, turn)
                review(context, node, lower_is_better=lower_is_better)
            except EpisodeBudgetExceeded:
                termination = "time_budget"
                break
            nodes.append(node)
            if parent:
                parent.children.append(node.node_id)
            if context.time_left() <= 0:
                termination = "time_budget"
                break
    finally:
        # Also after a policy error: the best node so far is the submission.
        finish_with_best(context, nodes, lower_is_better, original="aideml")
        context.options["tree"] = [tree_row(n) for n in nodes]
    return termination
