"""Web plumbing the task side's features share: turning a service's refusal into a 400, role checks, form errors."""
