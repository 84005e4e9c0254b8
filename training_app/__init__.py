"""The training side, a folder per feature: rollouts/, campaigns/, runs/, latency/; shared/ holds what they share."""
