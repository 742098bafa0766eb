"""What every room of the operator reads: its settings and scope, the definitions in use,
the work queue, conditions and reports, and the writes not seen back yet."""
