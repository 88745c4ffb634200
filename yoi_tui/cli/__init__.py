"""The ``yoi`` command line (SPEC 14): thin wrappers over the memory core."""
