"""Text that crosses a trust boundary: JSON we did not write (bounded in depth and refusing NaN where stored) and CSV
cells a spreadsheet would run as formulas."""
