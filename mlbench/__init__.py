"""mlbench: benchmark multi-label classification methods the way the field's papers do."""

__version__ = "0.1.0"
