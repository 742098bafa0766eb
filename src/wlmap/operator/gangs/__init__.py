"""Gang sync: the gang objects and pod links each mapped workload wants, written, kept
and checked for drift."""
