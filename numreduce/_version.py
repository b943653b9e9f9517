"""The package version (one place: ``numreduce.__version__``, show_config)."""

__version__ = "0.1.0"
