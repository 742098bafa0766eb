"""Readers that turn trace and cluster files into placement nodes and pods."""
