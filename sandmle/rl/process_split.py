"""How a step's episodes split over training processes: each process runs whole task groups in whole micro-batches.
The refusal names the way out (the nearest tasks_per_step that split, the process counts that split this one), and
is checked from the settings alone, before any model loads."""

from __future__ import annotations

from sandmle.settings import ConfigError

# tasks_per_step's range in the key table (sandmle/rl/config.py): suggestions stay inside it.
MAX_TASKS_PER_STEP = 4096


def splits(*, tasks_per_step: int, group_size: int, micro_batch: int, processes: int) -> bool:
    """Whether every process gets whole groups (GRPORun.rollout draws len(prompts) // group_size tasks) that fill
    whole micro-batches, at least one."""
    if tasks_per_step % processes:
        return False
    per_process = group_size * tasks_per_step // processes
    return per_process >= micro_batch and per_process % micro_batch == 0


def splitting_tasks_per_step(*, tasks_per_step: int, group_size: int, micro_batch: int, processes: int) -> list[int]:
    """The nearest tasks_per_step below and above the given one that split over `processes` (one side may lack)."""
    def fits(tasks: int) -> bool:
        return splits(tasks_per_step=tasks, group_size=group_size, micro_batch=micro_batch, processes=processes)

    below = next((t for t in range(tasks_per_step - 1, 0, -1) if fits(t)), None)
    above = next((t for t in range(tasks_per_step + 1, MAX_TASKS_PER_STEP + 1) if fits(t)), None)
    return [t for t in (below, above) if t is not None]


def splitting_process_counts(*, tasks_per_step: int, group_size: int, micro_batch: int, processes: int) -> list[int]:
    """The nearest process counts below and above `processes` over which tasks_per_step splits (one side may lack)."""
    def fits(count: int) -> bool:
        return splits(tasks_per_step=tasks_per_step, group_size=group_size, micro_batch=micro_batch, processes=count)

    # A process needs a whole group, so no count above tasks_per_step splits it.
    below = next((n for n in range(processes - 1, 0, -1) if fits(n)), None)
    above = next((n for n in range(processes + 1, tasks_per_step + 1) if fits(n)), None)
    return [n for n in (below, above) if n is not None]


def check_process_split(*, tasks_per_step: int, group_size: int, micro_batch: int, processes: int) -> None:
    """Raises ConfigError(tasks_per_step) naming the values that split, where this step does not split."""
    given = {"tasks_per_step": tasks_per_step, "group_size": group_size, "micro_batch": micro_batch}
    if splits(**given, processes=processes):
        return
    tasks = splitting_tasks_per_step(**given, processes=processes)
    counts = splitting_process_counts(**given, processes=processes)
    ways = []
    if tasks:
        ways.append(f"tasks_per_step {' or '.join(map(str, tasks))} on {processes} processes")
    if counts:
        ways.append(f"{' or '.join(map(str, counts))} processes for tasks_per_step {tasks_per_step}")
    way_out = f": use {', or '.join(ways)}" if ways else ""
    raise ConfigError("tasks_per_step", f"{tasks_per_step} groups of {group_size} episodes do not split evenly over "
                                        f"{processes} training processes (each needs whole groups, in micro-batches "
                                        f"of {micro_batch}){way_out}")
