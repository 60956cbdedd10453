"""invoke collect: pystats for the pyperformance suite, per benchmark, with a trust verdict."""
