"""A small client for OpenAI-compatible chat endpoints, shared by synthesis stages, judges and policies."""
