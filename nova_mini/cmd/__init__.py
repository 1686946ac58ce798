"""Console scripts: thin wrappers that configure and start a service."""
