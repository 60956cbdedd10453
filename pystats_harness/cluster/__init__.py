"""Scale-out on a Dask cluster: units of work sent to workers, each with its own engine and cache."""
