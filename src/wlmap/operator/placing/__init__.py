"""The placement controller: the gate, the cluster's capacity, plans for gated gangs,
their devices, and the faults that take nodes and devices out of them."""
