"""Task sets: named groups of approved tasks that rollouts, campaigns and training runs start from."""
