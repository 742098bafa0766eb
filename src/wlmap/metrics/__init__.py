"""wlmap's Prometheus metrics: the exposition of the workload view, served and offline."""
