"""The studio's cross-app pages: the dashboard and the live progress of every job row."""
