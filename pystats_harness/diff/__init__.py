"""`invoke diff`: two revisions built, collected with the same loops and processes, and compared."""
