"""The package version (the wheel's, and python.json's `package`)."""
__version__ = "0.1.0"
