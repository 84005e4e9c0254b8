"""Accounts: roles as Django groups (viewer < curator < reviewer < admin), login pages and API tokens."""
