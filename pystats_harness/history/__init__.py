"""`invoke history`: pystats over a range of commits (first-parent), with change points flagged."""
